package terrainapi

import (
	"errors"
	"net/http"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/terrain"
)

// maxProfilePoints caps the vertices of the profile's coords parameter.
const maxProfilePoints = 1000

const routingDesc = "The WGS84 point is projected into each candidate BL's CRS (UTM32N EPSG:25832 or UTM33N EPSG:25833, " +
	"transverse Mercator accurate to under 1 mm against PROJ) and routed through the pack's tile index to the tile covering it. " +
	"Points closer than 0.6 m to a tile edge move 0.6 m inward; the pixel containing the point is read (as gdallocationinfo does). " +
	"Where coverage overlaps (state borders, shared tile edges) BLs are tried in order of their code and tiles by name; the first " +
	"valid pixel wins, so `source_bl` is the dataset of the tile, not necessarily the administrative location. " +
	"`tile_id` is `<bl>/<snapshot>/<tile name>`, the tile name being the stem of the source file (e.g. `he/2026-07-20/dgm1_32_477_5551`). "

// TerrainRoutes are the elevation, profile and canopy routes.
func TerrainRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	latP := httpapi.Param{Name: "lat", In: "query", Type: "number", Required: true, Example: 50.115, Min: httpapi.F64(-90), Max: httpapi.F64(90), Desc: "WGS84 latitude, degrees"}
	lonP := httpapi.Param{Name: "lon", In: "query", Type: "number", Required: true, Example: 8.67, Min: httpapi.F64(-180), Max: httpapi.F64(180), Desc: "WGS84 longitude, degrees"}
	srsP := httpapi.Param{Name: "srs", In: "query", Type: "string", Default: "EPSG:4326", Enum: []string{"EPSG:4326"}, Fold: true, Desc: "CRS of lat/lon; only EPSG:4326"}
	// SPEC 4.6: the canopy answers an unsupported srs with 400, the
	// elevation with 422.
	canopySRS := srsP
	canopySRS.Refuse = httpapi.ErrMalformed
	resp502 := httpapi.Response{Status: 502, Desc: "A pass-through COG source is unreachable", Schema: "Problem"}
	return []httpapi.Route{
		{Method: "GET", Path: "/v1/terrain/elevation", OpID: "getElevation", Tag: "Terrain", Stability: "stable", Since: "0.1.0",
			Summary: "Terrain height (DGM1) at one point",
			Desc: routingDesc + "`elevation_m` is rounded half away from zero to 3 decimals. NoData (water, tile edge) gives 404, never 0.0. " +
				"Missing or non-numeric lat/lon are 422 like out-of-range values. The 503 of the specification (raster reading component " +
				"not installed) cannot occur: the COG reader is compiled into the server.",
			Params: []httpapi.Param{latP, lonP, srsP, InterpolationParam()},
			Responses: []httpapi.Response{{Status: 200, Desc: "Elevation", Schema: "ElevationResult"},
				{Status: 404, Desc: "Outside all terrain coverage, or the pixel is NoData", Schema: "Problem"}, httpapi.Resp422, resp502},
			Handle: s.handleElevation},
		{Method: "GET", Path: "/v1/terrain/profile", OpID: "getTerrainProfile", Tag: "Terrain", Stability: "stable", Since: "0.1.0",
			Summary: "Terrain profile along a polyline",
			Desc: "Samples evenly spaced along the polyline; its length is measured in UTM32N (also east of 12 E) and `distance_m` is " +
				"cumulative from the first point. Each sample is routed and sampled as in /v1/terrain/elevation. A sample outside " +
				"coverage, on NoData or on a tile that failed to read has `elevation_m: null`, `tile_id: null` and `source_bl: \"\"` " +
				"(or the BL whose tile failed), and sets `partial: true`; failed tiles are listed in `failed_tile_ids` and the status stays 200. " +
				"404 when no sample has an elevation and no tile failed. 502 when no sample has an elevation because a pass-through " +
				"source is unreachable. Coordinates with a value out of range (lat beyond 90, lon beyond 180) are 422; malformed coords, " +
				"fewer than 2 or more than 1000 points are 400. elevation_m has 3 decimals, distance_m and total_length_m 2, " +
				"coordinates 7. `svc.attribution` lists the licence of every BL present.",
			Params: []httpapi.Param{
				{Name: "coords", In: "query", Type: "string", Required: true, Example: "8.668,50.115;8.672,50.116", Desc: "polyline " + geo.CoordsForm + " in WGS84 degrees, 2 to 1000 points",
					Parse: parseCoords},
				{Name: "samples", In: "query", Type: "integer", Default: 100, Min: httpapi.F64(2), Max: httpapi.F64(2000), Desc: "number of samples"},
				InterpolationParam(),
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "Profile", Schema: "ProfileResult", ContentType: "application/geo+json"},
				{Status: 400, Desc: "coords malformed or fewer than 2 points", Schema: "Problem"},
				{Status: 404, Desc: "All samples outside coverage", Schema: "Problem"}, httpapi.Resp422, resp502},
			Handle: s.handleProfile},
		{Method: "GET", Path: "/v1/vegetation/canopy", OpID: "getCanopy", Tag: "Vegetation", Stability: "beta", Since: "0.1.0",
			Summary: "Canopy height and crown base at one point",
			Desc: routingDesc + "The CDSM gives `canopy_height_m` (metres above ground, 3 decimals); values below 2 m count as " +
				"vegetation-free (404). With `trunk=true` the TDSM of the same dataset gives `crown_base_m`, null without a TDSM or " +
				"on NoData there. `height_reference` is always `above_ground`. `transmissivity`: Beer-Lambert extinction through the " +
				"crown, T = 100 exp(-0.5 LAD d) percent, with d the crown depth (canopy height minus crown base, or 75 % of the canopy " +
				"height without crown base) and the leaf area density LAD between a dense and an open crown; each array is " +
				"[dense crown, open crown], 1 decimal. leaf_on uses LAD 0.5 and 0.2 m2/m3, leaf_off the woody area 0.15 and 0.05 m2/m3.",
			Params: []httpapi.Param{latP, lonP,
				{Name: "trunk", In: "query", Type: "boolean", Default: true, Desc: "also sample the crown base"}, canopySRS},
			Responses: []httpapi.Response{{Status: 200, Desc: "Canopy", Schema: "CanopyResult"},
				{Status: 400, Desc: "Unsupported srs", Schema: "Problem"},
				{Status: 404, Desc: "No vegetation dataset covers the point, or NoData", Schema: "Problem"}, httpapi.Resp422,
				{Status: 502, Desc: "CDSM COG not readable", Schema: "Problem"}},
			Handle: s.handleCanopy},
	}
}

// rasterProblem tells the client which point found no value.
func rasterProblem(err error, what string, lon, lat float64) error {
	switch {
	case errors.Is(err, terrain.ErrOutside):
		return httpapi.Report(terrain.ErrOutside, "No %s dataset covers lon %g, lat %g.", what, lon, lat).Because(err)
	case errors.Is(err, terrain.ErrNoData):
		return httpapi.Report(terrain.ErrNoData, "The %s raster holds no value at lon %g, lat %g (NoData).", what, lon, lat).Because(err)
	}
	return err
}

func (s *surface) handleElevation(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	p := geo.LonLat{Lon: in.Num("lon"), Lat: in.Num("lat")}
	v, release := s.Catalog.Acquire()
	defer release()
	e, err := query.ElevationAt(r.Context(), v, p, httpapi.ParsedAs[terrain.Interpolation](in, "interpolation"))
	if err != nil {
		return rasterProblem(err, "terrain", p.Lon, p.Lat)
	}
	s.SetBL(r.Context(), e.SourceBL)
	return httpapi.WriteJSON(w, r, http.StatusOK, "", e)
}

// parseCoords reads the profile's polyline: malformed is 400, a value out
// of range 422 (SPEC 4.5).
func parseCoords(s string) (any, error) {
	pts, err := geo.ParseCoords(s, maxProfilePoints)
	var ce *geo.CoordsError
	switch {
	case errors.As(err, &ce) && ce.OutOfRange:
		return nil, httpapi.RangeFault("%s.", ce.Reason)
	case errors.As(err, &ce):
		return nil, httpapi.SyntaxFault("%s; expected %s in WGS84 degrees, 2 to %d points.", ce.Reason, geo.CoordsForm, maxProfilePoints)
	}
	return pts, err
}
