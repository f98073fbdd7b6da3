package dataapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/solarstore"
)

// errNoClimate is the 503 of the solar route on a server started without
// --irradiance: a configuration, not a fault (logged below ERROR).
func errNoClimate() error {
	return httpapi.Report(httpapi.ErrNotConfigured, "No irradiance climate is configured on this server: the operator must start "+
		"`svc serve` with `--irradiance FILE` (env SVC_IRRADIANCE), a PVGIS TMY file (CSV or JSON) or an EnergyPlus EPW file for the region.")
}

// SolarRoute is GET /v1/buildings/{gmlid}/solar.
func SolarRoute(env Env, gmlidParam httpapi.Param) httpapi.Route {
	s := &surface{env}
	return httpapi.Route{Method: "GET", Path: "/v1/buildings/{gmlid}/solar", OpID: "getBuildingSolar", Tag: "Buildings", Stability: "beta", Since: "0.2.0",
		Summary: "Annual and monthly solar irradiation of each roof facet of a building",
		Desc: "From the operator's climate file (`svc serve --irradiance FILE`: PVGIS TMY CSV/JSON or EPW) or, " +
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
			"a building without roof facets answers an empty `facets` list. " +
			"`computed` says where the values come from: `precomputed` when `svc build solar` stored the building in the BL's solar pack for " +
			"the published LoD2 pack, with this server's climate (the same file by SHA-256, or the built-in default climate on a server without one) and the terrain and vegetation packs published now " +
			"(the store keeps whole Wh/m², so a value may differ from the on-demand one by 0.01 in its last decimal); `on_demand` otherwise " +
			"(no solar pack, another climate or LoD2 snapshot, a building part's gml:id), computed for the request (docs/solar.md).",
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
	// Computed is computedStore or computedOnDemand; the last member, so
	// the others read the same either way.
	Computed string `json:"computed"`
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
	roof, how, err := solarRoof(r.Context(), c, v, src, gmlid, facets)
	if err != nil {
		return err
	}
	ans := solarFacets(c, facets, roof)
	ans.Computed = how
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

// How an answer was obtained, its "computed" member.
const (
	computedStore    = "precomputed"
	computedOnDemand = "on_demand"
)

// solarRoof takes the building's facets from the BL's solar store when
// one was computed for the published LoD2 pack, with the server's climate
// file and the terrain and vegetation packs published now, and holds the
// building (by its own gml:id); else it computes them.
func solarRoof(ctx context.Context, c *roofsolar.Climate, v *catalog.View, src lod2store.Source, gmlid string, facets []lod2store.Facet) (roofsolar.Roof, string, error) {
	in := roofsolar.Inputs{LoD2: src.LoD2, Terrain: v.Rasters(pack.Terrain), Vegetation: v.Rasters(pack.Vegetation)}
	if st := v.Solar(src.BL); st != nil {
		info := st.Info()
		if info.Climate.SHA256 == c.SHA256 && slices.Equal(info.Inputs, in.Keys()) {
			b, err := st.Building(ctx, gmlid)
			switch {
			case err == nil:
				// A row that does not fit the LoD2 roof (it cannot, for
				// the same lod2.sqlite) is not used: computed below.
				if roof, err := roofsolar.FromStore(b, facets, info.Shading); err == nil {
					return roof, computedStore, nil
				}
			case !errors.Is(err, solarstore.ErrNotFound):
				return roofsolar.Roof{}, "", err
			}
		}
	}
	roof, err := roofsolar.Compute(ctx, c, in, facets)
	return roof, computedOnDemand, err
}

// solarFacets is the answer's facets, total, model, shading and climate
// for the facets (roof order) computed as roof.
func solarFacets(c *roofsolar.Climate, facets []lod2store.Facet, roof roofsolar.Roof) *solarAnswer {
	se := c.Series
	ans := &solarAnswer{Facets: make([]solarFacet, 0, len(facets)), Model: c.Sky.Description(), Shading: roof.Shading,
		Best: solarBest{TiltDeg: c.BestTiltDeg, AzimuthDeg: c.BestAzimuthDeg, AnnualKWhM2: r2(c.BestWhM2 / 1000)},
		Climate: solarClimate{File: c.File, Format: string(se.Format), Source: se.Source, FirstYear: se.FirstYear, LastYear: se.LastYear,
			LatDeg: se.Site.LatDeg, LonDeg: se.Site.LonDeg, ElevationM: se.Site.ElevationM, Method: c.Method, Attribution: c.Attribution}}
	var total float64
	for i, f := range facets {
		fv := roof.Facets[i]
		plane, annual := fv.PlaneAreaM2, fv.AnnualWhM2
		sf := solarFacet{Index: i, TiltDeg: f.TiltDeg, AzimuthDeg: f.AzimuthDeg, AreaM2: f.AreaM2, PlaneAreaM2: r2(plane),
			Unshaded: r2(fv.UnshadedWhM2 / 1000)}
		for m, x := range fv.MonthlyWhM2 {
			sf.MonthlyKWh[m] = r2(x / 1000)
		}
		if l := fv.Loss; l != nil {
			sf.Loss = &solarLoss{Terrain: r2(l.Terrain / 1000), Buildings: r2(l.Buildings / 1000), Trees: r2(l.Trees / 1000)}
		}
		sf.AnnualKWhM2, sf.YieldKWh = r2(annual/1000), r2(annual/1000*plane)
		if c.BestWhM2 > 0 {
			sf.ShareOfBest = math.Round(annual/c.BestWhM2*1000) / 1000
		}
		sf.Class = roofsolar.Class(sf.ShareOfBest)
		ans.Total.PlaneAreaM2 += plane
		total += annual / 1000 * plane
		ans.Facets = append(ans.Facets, sf)
	}
	ans.Total.PlaneAreaM2 = r2(ans.Total.PlaneAreaM2)
	ans.Total.YieldKWh = r2(total)
	return ans
}
