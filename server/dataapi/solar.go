package dataapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/shading"
	"github.com/svc-geodata/svc/solar"
	"github.com/svc-geodata/svc/solar/climate"
	"github.com/svc-geodata/svc/terrain"
)

// Climate is the operator's irradiance file (`svc serve --irradiance`),
// read once at start, or a cell of the default climate (DefaultClimates),
// and what every solar answer shares: the sky of its site and the best
// plane's yield there (the reference of the classes).
type Climate struct {
	File   string // base name of the file, as answers name it; "" for the default climate
	Series *climate.Series
	Sky    *solar.Sky
	// Best is the plane of the highest annual irradiation at the climate's
	// site (tilt 0-90° in 1° steps, azimuth 0-355° in 5° steps), unshaded.
	BestTiltDeg, BestAzimuthDeg, BestWhM2 float64
	// Method and Attribution describe the default climate (how its hours
	// are made, whom its data credit); "" for a file.
	Method, Attribution string
}

// climateModel is the sky model and ground albedo of the solar route:
// Perez is what PVGIS and pvlib default to for tilted planes; 0.2 is the
// usual albedo of mixed urban ground.
const (
	climateModel  = solar.Perez
	climateAlbedo = 0.2
)

// LoadClimate reads a PVGIS TMY (CSV or JSON) or EPW file and prepares the
// sky at its site. Errors carry the reader's message (the line at fault).
func LoadClimate(ctx context.Context, path string) (*Climate, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	series, err := climate.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c, err := prepareClimate(ctx, series)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.File = filepath.Base(path)
	return c, nil
}

// prepareClimate builds the sky of a series and finds its best plane.
func prepareClimate(ctx context.Context, series *climate.Series) (*Climate, error) {
	sky, err := solar.NewSky(ctx, series.Records, solar.SkyOptions{Site: series.Site, SPA: solar.DefaultSPAOptions(),
		Model: climateModel, StepH: series.StepH, Albedo: climateAlbedo})
	if err != nil {
		return nil, err
	}
	c := &Climate{Series: series, Sky: sky}
	var r solar.Result
	for tilt := 0.0; tilt <= 90; tilt++ {
		for az := 0.0; az < 360; az += 5 {
			if err := sky.Irradiation(solar.Facet{TiltDeg: tilt, AzimuthDeg: az, SkyView: 1}, nil, &r); err != nil {
				return nil, err
			}
			if g := r.Annual().GlobalUnshaded(); g > c.BestWhM2 {
				c.BestTiltDeg, c.BestAzimuthDeg, c.BestWhM2 = tilt, az, g
			}
			if tilt == 0 {
				break // a flat plane has no azimuth
			}
		}
	}
	return c, nil
}

// SolarClass thresholds: the facet's annual irradiation as a share of the
// best plane's at the site (docs/solar.md section 10).
var solarClasses = []struct {
	min  float64
	name string
}{{0.9, "very_good"}, {0.8, "good"}, {0.7, "fair"}, {0, "poor"}}

func solarClass(share float64) string {
	for _, c := range solarClasses {
		if share >= c.min {
			return c.name
		}
	}
	return "poor"
}

// errNoClimate is the 503 of the solar route on a server started without
// --irradiance.
func errNoClimate() error {
	return httpapi.Report(httpapi.ErrUnavailable, "No irradiance climate is configured on this server: the operator must start "+
		"`svc serve` with `--irradiance FILE` (env SVC_IRRADIANCE), a PVGIS TMY file (CSV or JSON) or an EnergyPlus EPW file for the region.")
}

// SolarRoute is GET /v1/buildings/{gmlid}/solar.
func SolarRoute(env Env, gmlidParam httpapi.Param) httpapi.Route {
	s := &surface{env}
	return httpapi.Route{Method: "GET", Path: "/v1/buildings/{gmlid}/solar", OpID: "getBuildingSolar", Tag: "Buildings", Stability: "beta", Since: "0.2.0",
		Summary: "Annual and monthly solar irradiation of each roof facet of a building",
		Desc: "Computed on demand from the operator's climate file (`svc serve --irradiance FILE`: PVGIS TMY CSV/JSON or EPW) or, " +
			"without one, from the built-in default climate of Germany: EUMETSAT CM SAF monthly mean global horizontal irradiance " +
			"2006-2025 on a 0.2° grid (about 22 x 14 km; IWU clidamonger, CC BY 4.0; © EUMETSAT) of the building's grid cell, turned " +
			"into an hourly year (Erbs et al. 1982 monthly diffuse share, clear-sky and overcast days; `climate.method`, credited in " +
			"`climate.attribution`; docs/solar.md). `climate` names the input and its period. Per roof facet of GET /v1/buildings/{gmlid}/roof (same order, `index`), the irradiation on the " +
			"facet's plane per UTC calendar month and per year (kWh/m², NREL SPA sun, Perez sky diffuse, albedo 0.2, `model`), the " +
			"plane's area (the projected `area_m2` / cos tilt) and the yearly total on it (`yield_kwh` = annual x plane area). " +
			"A facet with tilt < 5° has no azimuth (null) and is computed facing south. `class` rates the facet's annual irradiation as a " +
			"share of the best plane's at the climate's site (`best_plane`): >= 90 % very_good, >= 80 % good, >= 70 % fair, else poor. " +
			"Shading (`shading`: what was evaluated) by the terrain (horizon from the BL zone's DGM packs), the LoD2 buildings within " +
			"200 m and the CDSM tree crowns within 100 m (when a vegetation pack is published) lowers `annual_kwh_m2` and the months " +
			"from `unshaded_annual_kwh_m2`; `loss_kwh_m2` splits the loss in that order (terrain, then buildings, then trees; the " +
			"three add up to the difference). Without a DGM pack in the building's CRS `shading` says \"not evaluated: ...\", " +
			"`loss_kwh_m2` is null and the values are those of " +
			"the open plane. The sun positions are those of the climate's site (the file's, or the grid point of the default climate). " +
			"503 for a building outside the default climate's grid when no file is configured; " +
			"a building without roof facets answers an empty `facets` list.",
		Params: []httpapi.Param{gmlidParam},
		Responses: []httpapi.Response{{Status: 200, Desc: "Irradiation of the roof facets", Schema: "SolarResponse", ContentType: "application/json"},
			httpapi.Resp404, {Status: 503, Desc: "No climate for the building: outside Germany's default climate grid and no --irradiance file", Schema: "Problem"}},
		Handle: s.handleSolar}
}

type solarFacet struct {
	Index       int         `json:"index"`
	TiltDeg     float64     `json:"tilt_deg"`
	AzimuthDeg  *float64    `json:"azimuth_deg"`
	AreaM2      float64     `json:"area_m2"`
	PlaneAreaM2 float64     `json:"plane_area_m2"`
	AnnualKWhM2 float64     `json:"annual_kwh_m2"`
	MonthlyKWh  [12]float64 `json:"monthly_kwh_m2"`
	Unshaded    float64     `json:"unshaded_annual_kwh_m2"`
	Loss        *solarLoss  `json:"loss_kwh_m2"`
	YieldKWh    float64     `json:"yield_kwh"`
	ShareOfBest float64     `json:"share_of_best"`
	Class       string      `json:"class"`
}

type solarAnswer struct {
	GMLID   string          `json:"gmlid"`
	BL      string          `json:"bl"`
	Facets  []solarFacet    `json:"facets"`
	Total   solarTotal      `json:"total"`
	Model   string          `json:"model"`
	Shading string          `json:"shading"`
	Best    solarBest       `json:"best_plane"`
	Climate solarClimate    `json:"climate"`
	Attrib  json.RawMessage `json:"attribution"`
}

// solarLoss is the annual loss by shading of a facet, kWh/m².
type solarLoss struct {
	Terrain   float64 `json:"terrain"`
	Buildings float64 `json:"buildings"`
	Trees     float64 `json:"trees"`
}

type solarTotal struct {
	PlaneAreaM2 float64 `json:"plane_area_m2"`
	YieldKWh    float64 `json:"yield_kwh"`
}

type solarBest struct {
	TiltDeg     float64 `json:"tilt_deg"`
	AzimuthDeg  float64 `json:"azimuth_deg"`
	AnnualKWhM2 float64 `json:"annual_kwh_m2"`
}

type solarClimate struct {
	File       string  `json:"file,omitempty"`
	Format     string  `json:"format"`
	Source     string  `json:"source"`
	FirstYear  int     `json:"first_year"`
	LastYear   int     `json:"last_year"`
	LatDeg     float64 `json:"latitude"`
	LonDeg     float64 `json:"longitude"`
	ElevationM float64 `json:"elevation_m"`
	// Method and Attribution: the default climate's (omitted for a file).
	Method      string `json:"method,omitempty"`
	Attribution string `json:"attribution,omitempty"`
}

// r2 rounds to 2 decimals, as the roof route does.
func r2(v float64) float64 { return math.Round(v*100) / 100 }

func (s *surface) handleSolar(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	gmlid := in.Str("gmlid")
	if s.Climate == nil && s.DefaultClimate == nil {
		return errNoClimate()
	}
	v, release := s.Catalog.Acquire()
	defer release()
	src, facets, err := buildings.Roof(r.Context(), buildings.Sources(v), gmlid)
	if errors.Is(err, lod2store.ErrNotFound) {
		return notFound(gmlid)
	}
	if err != nil {
		return err
	}
	c, err := s.solarClimateOf(r.Context(), src, gmlid, facets)
	if err != nil {
		return err
	}
	sh, how, err := shadeRoof(r.Context(), c, v, src, facets)
	if err != nil {
		return err
	}
	ans, err := solarFacets(c, facets, sh)
	if err != nil {
		return err
	}
	ans.Shading = how
	ans.GMLID, ans.BL = gmlid, src.BL
	var ab bytes.Buffer
	writeAttribution(&ab, v, []string{src.BL})
	ans.Attrib = ab.Bytes()
	body, err := json.Marshal(ans)
	if err != nil {
		return fmt.Errorf("solar answer: %w", err)
	}
	s.SetBL(r.Context(), src.BL)
	w.Header()["Content-Type"] = hdrJSON
	_, _ = w.Write(append(body, '\n'))
	return nil
}

// solarFacets computes the answer's facets, total, model and climate.
// sh holds the facets' shading (nil: not evaluated).
func solarFacets(c *Climate, facets []lod2store.Facet, sh []*shading.Shading) (*solarAnswer, error) {
	se := c.Series
	ans := &solarAnswer{Facets: make([]solarFacet, 0, len(facets)), Model: c.Sky.Description(),
		Best: solarBest{TiltDeg: c.BestTiltDeg, AzimuthDeg: c.BestAzimuthDeg, AnnualKWhM2: r2(c.BestWhM2 / 1000)},
		Climate: solarClimate{File: c.File, Format: string(se.Format), Source: se.Source, FirstYear: se.FirstYear, LastYear: se.LastYear,
			LatDeg: se.Site.LatDeg, LonDeg: se.Site.LonDeg, ElevationM: se.Site.ElevationM, Method: c.Method, Attribution: c.Attribution}}
	var res solar.Result
	var total float64
	for i, f := range facets {
		az := 180.0
		if f.AzimuthDeg != nil {
			az = *f.AzimuthDeg
		}
		tilt := math.Min(f.TiltDeg, maxShadedTiltDeg)
		if err := c.Sky.Irradiation(solar.Facet{TiltDeg: tilt, AzimuthDeg: az, SkyView: 1}, nil, &res); err != nil {
			return nil, fmt.Errorf("solar: facet %d: %w", i, err)
		}
		plane := f.AreaM2
		if cos := math.Cos(tilt * math.Pi / 180); cos > 1e-6 {
			plane /= cos
		}
		unshaded := res.Annual().GlobalUnshaded()
		annual := unshaded
		sf := solarFacet{Index: i, TiltDeg: f.TiltDeg, AzimuthDeg: f.AzimuthDeg, AreaM2: f.AreaM2, PlaneAreaM2: r2(plane),
			Unshaded: r2(unshaded / 1000)}
		for m, mc := range res.Monthly {
			sf.MonthlyKWh[m] = r2(mc.GlobalUnshaded() / 1000)
		}
		if sh != nil {
			annual = sh[i].Shaded.Annual().Global()
			for m, mc := range sh[i].Shaded.Monthly {
				sf.MonthlyKWh[m] = r2(mc.Global() / 1000)
			}
			t, b, tr := sh[i].Loss()
			sf.Loss = &solarLoss{Terrain: r2(t / 1000), Buildings: r2(b / 1000), Trees: r2(tr / 1000)}
		}
		sf.AnnualKWhM2, sf.YieldKWh = r2(annual/1000), r2(annual/1000*plane)
		if c.BestWhM2 > 0 {
			sf.ShareOfBest = math.Round(annual/c.BestWhM2*1000) / 1000
		}
		sf.Class = solarClass(sf.ShareOfBest)
		ans.Total.PlaneAreaM2 += plane
		total += annual / 1000 * plane
		ans.Facets = append(ans.Facets, sf)
	}
	ans.Total.PlaneAreaM2 = r2(ans.Total.PlaneAreaM2)
	ans.Total.YieldKWh = r2(total)
	return ans, nil
}

// maxShadedTiltDeg caps the tilt (package shading takes facets below 90°).
const maxShadedTiltDeg = 89.9

// shadeRoof evaluates the shading of the facets (package shading: terrain
// horizon, LoD2 buildings within 200 m, CDSM crowns within 100 m) with the
// terrain and vegetation packs in the zone of the building's LoD2 pack. how
// says what was evaluated; sh is nil (and how says why) without a DGM of
// that zone, for a building without facets, or when package shading
// rejects a facet's geometry (a degenerate ring).
func shadeRoof(ctx context.Context, c *Climate, v *catalog.View, src lod2store.Source, facets []lod2store.Facet) (sh []*shading.Shading, how string, err error) {
	if len(facets) == 0 {
		return nil, "not evaluated: no roof facets", nil
	}
	lod := src.LoD2
	crs := fmt.Sprintf("EPSG:%d", lod.EPSG())
	heights := func(p pack.Product, layer string) (shading.Heights, error) {
		var fo shading.FirstOf
		for _, d := range v.Rasters(p) {
			l := d.Layer(layer)
			if d.Manifest.CRS != crs || l == nil {
				continue
			}
			h, err := shading.NewLayerHeights(l)
			if err != nil {
				return nil, err
			}
			fo = append(fo, h)
		}
		if len(fo) == 0 {
			return nil, nil
		}
		return fo, nil
	}
	s := shading.Sources{Zone: lod.Zone(), LoD2: lod}
	if s.DGM, err = heights(pack.Terrain, terrain.LayerDGM); err != nil {
		return nil, "", err
	}
	if s.DGM == nil {
		return nil, "not evaluated: no terrain (DGM) pack in the building's CRS " + crs, nil
	}
	if s.CDSM, err = heights(pack.Vegetation, terrain.LayerCDSM); err != nil {
		return nil, "", err
	}
	if s.TDSM, err = heights(pack.Vegetation, terrain.LayerTDSM); err != nil {
		return nil, "", err
	}
	in := make([]shading.Facet, len(facets))
	for i, f := range facets {
		var rings [][][]float64
		if err := json.Unmarshal(f.Coords, &rings); err != nil || len(rings) == 0 {
			return nil, "", fmt.Errorf("solar: facet %d coordinates: %w", i, err)
		}
		ring := make([]float64, 0, 3*len(rings[0]))
		for _, p := range rings[0] {
			if len(p) < 3 {
				return nil, "", fmt.Errorf("solar: facet %d: a vertex without height", i)
			}
			x, y := geo.ToUTM(s.Zone, p[0], p[1])
			ring = append(ring, x, y, p[2])
		}
		az := 180.0
		if f.AzimuthDeg != nil {
			az = *f.AzimuthDeg
		}
		in[i] = shading.Facet{Ring: ring, TiltDeg: math.Min(f.TiltDeg, maxShadedTiltDeg), AzimuthDeg: az}
	}
	sh, err = shading.Roof(ctx, c.Sky, nil, s, in)
	if errors.Is(err, shading.ErrInvalid) {
		return nil, "not evaluated: " + err.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	how = "terrain, buildings"
	if s.CDSM != nil {
		how += ", trees"
	}
	return sh, how, nil
}
