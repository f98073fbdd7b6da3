package solar

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"
)

// germanLinke is a plausible monthly Linke turbidity for central Germany
// (low in winter, high in summer), for tests only.
var germanLinke = [12]float64{3.0, 3.2, 3.6, 4.0, 4.2, 4.3, 4.5, 4.4, 4.0, 3.6, 3.2, 3.0}

var testSkies = struct {
	sync.Once
	perez, hay *Sky
	ghiWhM2    float64
}{}

// testSky returns clear-sky Skies of 2025 at 51 N 10 E, 200 m, hourly.
func testSky(t testing.TB, m SkyModel) (*Sky, float64) {
	t.Helper()
	testSkies.Do(func() {
		site := Site{LatDeg: 51, LonDeg: 10, ElevationM: 200}
		recs, err := ClearSkyYear{Site: site, SPA: DefaultSPAOptions(), Year: 2025, Step: time.Hour, LinkeByMonth: germanLinke}.Records(context.Background())
		if err != nil {
			panic(err)
		}
		for _, r := range recs {
			testSkies.ghiWhM2 += r.GHI
		}
		opt := SkyOptions{Site: site, SPA: DefaultSPAOptions(), Model: Perez, StepH: 1, Albedo: 0.2}
		if testSkies.perez, err = NewSky(context.Background(), recs, opt); err != nil {
			panic(err)
		}
		opt.Model = HayDavies
		if testSkies.hay, err = NewSky(context.Background(), recs, opt); err != nil {
			panic(err)
		}
	})
	if m == HayDavies {
		return testSkies.hay, testSkies.ghiWhM2
	}
	return testSkies.perez, testSkies.ghiWhM2
}

func fill(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+1e-9
}

// TestIrradiationShadingHooks checks the beam-visibility and sky-view hooks
// against what they must do to each component, on a clear-sky year.
func TestIrradiationShadingHooks(t *testing.T) {
	t.Parallel()
	sky, _ := testSky(t, Perez)
	n := sky.Len()
	roof := Facet{TiltDeg: 35, AzimuthDeg: 180, SkyView: 1}
	var open Result
	if err := sky.Irradiation(roof, nil, &open); err != nil {
		t.Fatal(err)
	}
	o := open.Annual()
	for _, c := range []struct {
		name  string
		facet Facet
		vis   []float32
		check func(a Components) bool
	}{
		{"open: shaded equals unshaded", roof, nil, func(a Components) bool {
			return a.Beam == a.BeamUnshaded && a.Sky == a.SkyUnshaded && a.Beam > 0 && a.Sky > 0 && a.Ground > 0
		}},
		{"visibility 1 everywhere equals nil", roof, fill(n, 1), func(a Components) bool { return a == o }},
		{"crown of transmissivity 0.3 halves nothing else", roof, fill(n, 0.3), func(a Components) bool {
			return near(a.Beam, 0.3*o.Beam, 1e-6) && a.Sky < o.Sky && a.Sky > 0.3*o.Sky && a.Ground == o.Ground && a.BeamUnshaded == o.BeamUnshaded
		}},
		{"beam blocked: no beam, circumsolar gone, isotropic stays", roof, fill(n, 0), func(a Components) bool {
			return a.Beam == 0 && a.Sky > 0 && a.Sky < o.Sky && a.SkyUnshaded == o.SkyUnshaded
		}},
		{"no sky view: beam intact, only circumsolar diffuse", Facet{TiltDeg: 35, AzimuthDeg: 180, SkyView: 0}, nil, func(a Components) bool {
			return a.Beam == o.Beam && a.Sky > 0 && a.Sky < o.Sky
		}},
		{"flat roof, beam blocked, no sky: dark", Facet{TiltDeg: 0, AzimuthDeg: 180, SkyView: 0}, fill(n, 0), func(a Components) bool {
			return a.Global() == 0 && a.GlobalUnshaded() > 1e6
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Result
			if err := sky.Irradiation(c.facet, c.vis, &r); err != nil {
				t.Fatal(err)
			}
			if a := r.Annual(); !c.check(a) {
				t.Errorf("annual %+v (open roof %+v)", a, o)
			}
		})
	}
}

// TestIrradiationHorizontalHayDavies: on a horizontal plane Hay-Davies gives
// back DNI·cos z + DHI = GHI exactly (the circumsolar term over cos z
// cancels), so the annual sum is the climate's annual GHI.
func TestIrradiationHorizontalHayDavies(t *testing.T) {
	t.Parallel()
	sky, ghi := testSky(t, HayDavies)
	var r Result
	if err := sky.Irradiation(Facet{TiltDeg: 0, SkyView: 1}, nil, &r); err != nil {
		t.Fatal(err)
	}
	if got := r.Annual().Global(); !near(got, ghi, 1e-5) {
		t.Errorf("horizontal annual %.1f Wh/m², ΣGHI %.1f", got, ghi)
	}
	if d := sky.DroppedGHIWhM2(); d != 0 {
		t.Errorf("clear sky dropped %g Wh/m² with the sun below the horizon", d)
	}
	var sum float64
	for m := time.January; m <= time.December; m++ {
		from, to := sky.MonthSteps(m)
		if to <= from {
			t.Errorf("%v: no daylight steps", m)
		}
		sum += r.Monthly[m-1].Global()
	}
	if !near(sum, r.Annual().Global(), 1e-12) {
		t.Errorf("months sum to %.1f, annual %.1f", sum, r.Annual().Global())
	}
	if e, n, u := sky.SunVectors(); len(e) != sky.Len() || len(n) != sky.Len() || len(u) != sky.Len() {
		t.Errorf("sun vectors of %d, %d, %d steps for %d", len(e), len(n), len(u), sky.Len())
	} else if _, e0, n0, u0 := sky.Step(7); float32(e0) != e[7] || float32(n0) != n[7] || float32(u0) != u[7] {
		t.Errorf("Step(7) and SunVectors disagree")
	}
	if d := sky.Description(); d != "NREL SPA sun positions; sky diffuse Hay-Davies 1980; ground albedo 0.20; 1 h steps" {
		t.Errorf("description %q", d)
	}
	if j, jn := r.Monthly[0].Global(), r.Monthly[5].Global(); !(jn > 3*j) {
		t.Errorf("June %.0f Wh/m² not well above January %.0f", jn, j)
	}
}

func TestIrradiationErrors(t *testing.T) {
	t.Parallel()
	sky, _ := testSky(t, Perez)
	for _, c := range []struct {
		name  string
		facet Facet
		vis   []float32
	}{
		{"negative tilt", Facet{TiltDeg: -1, SkyView: 1}, nil},
		{"sky view above 1", Facet{TiltDeg: 10, SkyView: 1.5}, nil},
		{"NaN azimuth", Facet{TiltDeg: 10, AzimuthDeg: math.NaN(), SkyView: 1}, nil},
		{"visibility of another sky", Facet{TiltDeg: 10, SkyView: 1}, make([]float32, sky.Len()-1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Result
			if err := sky.Irradiation(c.facet, c.vis, &r); !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v, want ErrInvalid", err)
			}
		})
	}
}

func TestNewSkyErrors(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 21, 11, 30, 0, 0, time.UTC)
	ok := SkyOptions{Site: Site{LatDeg: 51, LonDeg: 10}, SPA: DefaultSPAOptions(), StepH: 1, Albedo: 0.2}
	rec := []Record{{Time: at, Irradiance: Irradiance{GHI: 800, DNI: 700, DHI: 150}}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		recs []Record
		opt  func(o *SkyOptions)
		want error
	}{
		{"no records", context.Background(), nil, nil, ErrInvalid},
		{"NaN GHI", context.Background(), []Record{{Time: at, Irradiance: Irradiance{GHI: math.NaN()}}}, nil, ErrInvalid},
		{"negative DNI", context.Background(), []Record{{Time: at, Irradiance: Irradiance{DNI: -1}}}, nil, ErrInvalid},
		{"kW/m² instead of W/m²", context.Background(), []Record{{Time: at, Irradiance: Irradiance{GHI: 800e3}}}, nil, ErrInvalid},
		{"step 0", context.Background(), rec, func(o *SkyOptions) { o.StepH = 0 }, ErrInvalid},
		{"albedo 2", context.Background(), rec, func(o *SkyOptions) { o.Albedo = 2 }, ErrInvalid},
		{"latitude 95", context.Background(), rec, func(o *SkyOptions) { o.Site.LatDeg = 95 }, ErrInvalid},
		{"unknown model", context.Background(), rec, func(o *SkyOptions) { o.Model = 7 }, ErrInvalid},
		{"cancelled", cancelled, rec, nil, context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			if c.opt != nil {
				c.opt(&o)
			}
			if _, err := NewSky(c.ctx, c.recs, o); !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
	if _, err := (ClearSkyYear{Year: 2025, Step: 7 * time.Minute, LinkeByMonth: germanLinke}).Records(context.Background()); !errors.Is(err, ErrInvalid) {
		t.Errorf("7 min step: error %v, want ErrInvalid", err)
	}
	if _, err := (ClearSkyYear{Year: 2025, Step: time.Hour}).Records(context.Background()); !errors.Is(err, ErrInvalid) {
		t.Errorf("no turbidity: error %v, want ErrInvalid", err)
	}
}

// TestIrradiationAllocs: the per-facet sum allocates nothing.
func TestIrradiationAllocs(t *testing.T) {
	sky, _ := testSky(t, Perez)
	vis := fill(sky.Len(), 0.7)
	var r Result
	f := Facet{TiltDeg: 30, AzimuthDeg: 200, SkyView: 0.9}
	if a := testing.AllocsPerRun(20, func() { _ = sky.Irradiation(f, vis, &r) }); a != 0 {
		t.Errorf("%v allocations per facet", a)
	}
}

// TestSharedEphemerides: a Sky built from ephemerides shared between cells
// gives the same sums as one computing its own sun positions.
func TestSharedEphemerides(t *testing.T) {
	t.Parallel()
	site := Site{LatDeg: 48.1, LonDeg: 11.6, ElevationM: 520}
	recs, err := ClearSkyYear{Site: site, SPA: DefaultSPAOptions(), Year: 2025, Step: time.Hour, LinkeByMonth: germanLinke}.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	eph, err := Ephemerides(context.Background(), recs, DefaultDeltaTS)
	if err != nil {
		t.Fatal(err)
	}
	opt := SkyOptions{Site: site, SPA: DefaultSPAOptions(), StepH: 1, Albedo: 0.2}
	own, err := NewSky(context.Background(), recs, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Ephemerides = eph
	shared, err := NewSky(context.Background(), recs, opt)
	if err != nil {
		t.Fatal(err)
	}
	var a, b Result
	f := Facet{TiltDeg: 40, AzimuthDeg: 135, SkyView: 1}
	if err := own.Irradiation(f, nil, &a); err != nil {
		t.Fatal(err)
	}
	if err := shared.Irradiation(f, nil, &b); err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("shared ephemerides %+v, own %+v", b.Annual(), a.Annual())
	}
	opt.Ephemerides = eph[1:]
	if _, err := NewSky(context.Background(), recs, opt); !errors.Is(err, ErrInvalid) {
		t.Errorf("ephemerides of another series: error %v, want ErrInvalid", err)
	}
}
