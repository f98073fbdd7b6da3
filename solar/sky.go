package solar

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// SkyModel selects the anisotropic model of the sky diffuse irradiance on a
// tilted plane.
type SkyModel int

const (
	// Perez is the Perez et al. (1990, Solar Energy 44(5) 271-289) model with
	// the 'allsitescomposite1990' coefficients: circumsolar, isotropic and
	// horizon-band terms by sky clearness and brightness.
	Perez SkyModel = iota
	// HayDavies is Hay & Davies (1980): circumsolar weighted by the
	// anisotropy index DNI/DNI_extra, the rest isotropic.
	HayDavies
)

// String names the model as pvlib does.
func (m SkyModel) String() string {
	switch m {
	case Perez:
		return "perez"
	case HayDavies:
		return "haydavies"
	}
	return fmt.Sprintf("SkyModel(%d)", int(m))
}

// Record is one step of a climate time series: the sun is placed at Time
// (the centre of the interval it stands for), the irradiance on the
// horizontal in W/m² is the mean over the interval.
type Record struct {
	Time time.Time
	Irradiance
}

// SkyOptions describe the location cell and how its records are turned into
// a Sky.
type SkyOptions struct {
	Site   Site
	SPA    SPAOptions // DefaultSPAOptions() unless measured
	Model  SkyModel
	StepH  float64 // hours each record stands for (1 for hourly series)
	Albedo float64 // ground reflectance for the ground-reflected part (0.2 is the usual default)
	// Ephemerides optionally holds NewEphemeris(recs[i].Time, SPA.DeltaTS)
	// for every record, computed once for all cells sharing the time steps
	// (Ephemerides); nil computes them here.
	Ephemerides []Ephemeris
}

// Ephemerides returns the geocentric sun of every record, to share between
// the location cells of one time series (SkyOptions.Ephemerides).
func Ephemerides(ctx context.Context, recs []Record, deltaTS float64) ([]Ephemeris, error) {
	eph := make([]Ephemeris, len(recs))
	for i, r := range recs {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		eph[i] = NewEphemeris(r.Time, deltaTS)
	}
	return eph, nil
}

// Sky holds what every facet of one location cell shares over one series of
// records (a year): per daylight step the sun's direction and the
// coefficients of the plane-of-array irradiance, so the per-facet sum is a
// few multiply-adds per step (Sky.Irradiation). Steps with the sun below the
// horizon (apparent zenith ≥ 90°) or without light are dropped; the rest are
// ordered by month and time. A Sky is immutable and safe for concurrent use.
type Sky struct {
	model  SkyModel
	stepH  float64
	albedo float64
	unix   []int64
	// Unit vector to the sun: east, north, up.
	sunE, sunN, sunU []float32
	dni, ghi         []float32
	// Sky diffuse on a plane = kIso·(1+cos β)/2 + kCs·max(cos θ, 0) + kHz·sin β.
	kIso, kCs, kHz []float32
	monthStart     [13]int     // steps of month m (0 = January) are [monthStart[m], monthStart[m+1])
	ghiMonth       [12]float64 // ΣGHI per month, W/m² x steps (the ground-reflected part's only input)
	droppedGHIWhM2 float64     // horizontal irradiation of records with light but the sun below the horizon at their time
}

// ctxEvery is how many records NewSky computes between context checks.
const ctxEvery = 256

// NewSky computes the sun position of every record (SPA), drops the night,
// and precomputes the sky-diffuse coefficients of opt.Model. It returns
// ErrInvalid for an empty series, a site or option out of range or a
// negative or non-finite irradiance, and ctx's error when cancelled.
func NewSky(ctx context.Context, recs []Record, opt SkyOptions) (*Sky, error) {
	if err := opt.validate(len(recs)); err != nil {
		return nil, err
	}
	type step struct {
		unix                           int64
		month                          int
		e, n, u, dni, ghi, iso, cs, hz float64
	}
	steps := make([]step, 0, len(recs)/2+1)
	var droppedGHI float64
	for i, r := range recs {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("solar: record %d (%s): %w", i, r.Time.UTC().Format(time.RFC3339), err)
		}
		var pos Position
		if opt.Ephemerides != nil {
			pos = opt.Ephemerides[i].Topocentric(opt.Site, opt.SPA)
		} else {
			pos = SunPosition(r.Time, opt.Site, opt.SPA)
		}
		z := pos.ApparentZenithDeg
		if r.GHI == 0 && r.DNI == 0 && r.DHI == 0 {
			continue
		}
		if z >= 90 {
			droppedGHI += r.GHI
			continue
		}
		iso, cs, hz := diffuseCoefficients(opt.Model, r.Irradiance, z, Extraterrestrial(r.Time))
		sinZ, cosZ := math.Sincos(deg2rad(z))
		sinA, cosA := math.Sincos(deg2rad(pos.AzimuthDeg))
		steps = append(steps, step{
			unix: r.Time.Unix(), month: int(r.Time.UTC().Month()) - 1,
			e: sinZ * sinA, n: sinZ * cosA, u: cosZ,
			dni: r.DNI, ghi: r.GHI, iso: iso, cs: cs, hz: hz,
		})
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		return cmp.Or(cmp.Compare(a.month, b.month), cmp.Compare(a.unix, b.unix))
	})
	n := len(steps)
	s := &Sky{
		model: opt.Model, stepH: opt.StepH, albedo: opt.Albedo, droppedGHIWhM2: droppedGHI * opt.StepH,
		unix: make([]int64, n), sunE: make([]float32, n), sunN: make([]float32, n), sunU: make([]float32, n),
		dni: make([]float32, n), ghi: make([]float32, n),
		kIso: make([]float32, n), kCs: make([]float32, n), kHz: make([]float32, n),
	}
	for i, st := range steps {
		s.unix[i] = st.unix
		s.sunE[i], s.sunN[i], s.sunU[i] = float32(st.e), float32(st.n), float32(st.u)
		s.dni[i], s.ghi[i] = float32(st.dni), float32(st.ghi)
		s.kIso[i], s.kCs[i], s.kHz[i] = float32(st.iso), float32(st.cs), float32(st.hz)
		s.monthStart[st.month+1] = i + 1
		s.ghiMonth[st.month] += float64(s.ghi[i])
	}
	for m := 1; m <= 12; m++ { // months without steps start where the previous ended
		s.monthStart[m] = max(s.monthStart[m], s.monthStart[m-1])
	}
	return s, nil
}

func (o SkyOptions) validate(n int) error {
	switch {
	case n == 0:
		return fmt.Errorf("solar: no records: %w", ErrInvalid)
	case !(o.Site.LatDeg >= -90 && o.Site.LatDeg <= 90), !(o.Site.LonDeg >= -180 && o.Site.LonDeg <= 180):
		return fmt.Errorf("solar: site %g, %g out of range: %w", o.Site.LatDeg, o.Site.LonDeg, ErrInvalid)
	case !(o.StepH > 0 && o.StepH <= 24):
		return fmt.Errorf("solar: step %g h (want 0 < h <= 24): %w", o.StepH, ErrInvalid)
	case !(o.Albedo >= 0 && o.Albedo <= 1):
		return fmt.Errorf("solar: albedo %g (want 0..1): %w", o.Albedo, ErrInvalid)
	case o.Model != Perez && o.Model != HayDavies:
		return fmt.Errorf("solar: sky model %v: %w", o.Model, ErrInvalid)
	case o.Ephemerides != nil && len(o.Ephemerides) != n:
		return fmt.Errorf("solar: %d ephemerides for %d records: %w", len(o.Ephemerides), n, ErrInvalid)
	}
	return nil
}

// validate accepts finite, non-negative irradiance below 2000 W/m² (above
// the solar constant plus any cloud enhancement: a unit error).
func (r Record) validate() error {
	for _, v := range [...]float64{r.GHI, r.DNI, r.DHI} {
		if !(v >= 0 && v < 2000) {
			return fmt.Errorf("irradiance %g W/m² (want 0..2000): %w", v, ErrInvalid)
		}
	}
	return nil
}

// DroppedGHIWhM2 is the horizontal irradiation in Wh/m² of records that
// carry light although the sun is below the horizon at their time (the
// sunrise or sunset hour of hourly means, whose centre falls before sunrise
// or after sunset); they are left out like the night, and an answer can
// state how much that is (clear-sky series: 0).
func (s *Sky) DroppedGHIWhM2() float64 { return s.droppedGHIWhM2 }

// Len is the number of daylight steps.
func (s *Sky) Len() int { return len(s.unix) }

// Model is the sky diffuse model the Sky was built with.
func (s *Sky) Model() SkyModel { return s.model }

// StepH is the duration in hours each step stands for.
func (s *Sky) StepH() float64 { return s.stepH }

// Step returns the time of daylight step i and the unit vector to the sun
// (east, north, up), for shading code that fills a beam-visibility slice.
func (s *Sky) Step(i int) (t time.Time, east, north, up float64) {
	return time.Unix(s.unix[i], 0).UTC(), float64(s.sunE[i]), float64(s.sunN[i]), float64(s.sunU[i])
}

// SunVectors returns the unit vectors to the sun of all daylight steps
// (east, north, up), for shading code that walks every step; the slices are
// the Sky's own and must not be modified.
func (s *Sky) SunVectors() (east, north, up []float32) { return s.sunE, s.sunN, s.sunU }

// Description names the model for answers that must state it, e.g.
// "NREL SPA sun positions; sky diffuse Perez 1990 (allsitescomposite1990); ground albedo 0.20; 1 h steps".
func (s *Sky) Description() string {
	sky := "Perez 1990 (allsitescomposite1990)"
	if s.model == HayDavies {
		sky = "Hay-Davies 1980"
	}
	return fmt.Sprintf("NREL SPA sun positions; sky diffuse %s; ground albedo %.2f; %g h steps", sky, s.albedo, s.stepH)
}

// MonthSteps returns the daylight steps [from, to) of month m (1 = January).
func (s *Sky) MonthSteps(m time.Month) (from, to int) {
	return s.monthStart[m-1], s.monthStart[m]
}
