package dataapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/solarstore"
	"github.com/svc-geodata/svc/tilecache"
)

// Solar potential map tiles (docs/solar.md, "Map tiles"): PNG tiles of the
// roof facets coloured by their precomputed annual irradiation, for the
// viewer's Map tab, MapLibre, Leaflet, OpenLayers and QGIS.
const solarTileBase = "/v1/solar"

// SolarTileRoutes are the solar map tile routes. The tiles share the
// building vector tiles' cache (Env.VectorTiles) under keys of their own.
func SolarTileRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	zooms := strconv.Itoa(buildings.SolarMinZoom) + " to " + strconv.Itoa(buildings.SolarMaxZoom)
	return []httpapi.Route{
		{Method: "GET", Path: solarTileBase + "/tiles.json", OpID: "getSolarTileJSON", Tag: "Buildings", Stability: "beta", Since: "0.3.0", Exempt: true,
			Summary: "TileJSON of the solar potential map tiles, with their legend (beyond the spec)",
			Desc: "TileJSON 3.0.0 for MapLibre (`{type: 'raster', url: '<base>" + solarTileBase + "/tiles.json', tileSize: 256}`), Leaflet, " +
				"OpenLayers and QGIS: the tile URL template, zoom " + zooms + " (clients overzoom beyond), the bounds of the BLs with a " +
				"published solar pack, an attribution naming the LoD2 data, the model and the climate input, and `legend` (TileJSON 3.0.0 " +
				"section 3.11: literal text, the ramp and classes in words). The extension member `solar_legend` carries the colour ramp " +
				"for a program: `stops` (annual irradiation on the facet's plane in kWh/m² and the colour " +
				"there, interpolated linearly in sRGB between stops, held beyond the ends) and `classes` (the suitability classes of " +
				"GET /v1/buildings/{gmlid}/solar with their share of the best plane and, when every published store has the same best plane, " +
				"the kWh/m² where each starts; each stop then also names its class). 404 when no solar pack is published (`svc build solar`).",
			Responses: []httpapi.Response{{Status: 200, Desc: "TileJSON with a legend", Schema: "SolarTileJSON"}, httpapi.Resp404},
			Handle:    s.handleSolarTileJSON},
		{Method: "GET", Path: solarTileBase + "/{z}/{x}/{tile}", OpID: "getSolarTile", Tag: "Buildings", Stability: "beta", Since: "0.3.0", Exempt: true,
			Summary: "One solar potential map tile (beyond the spec)",
			Desc: "Web Mercator XYZ tile (EPSG:3857, y from the north, as OpenStreetMap), 256 px, zoom " + zooms + ": every roof facet of " +
				"the published LoD2 data (every BL, both UTM zones) that a published solar pack holds, filled with the colour of its annual " +
				"irradiation after shading (`legend` of the TileJSON: viridis from 300 to 1,300 kWh/m²), anti-aliased, higher facets drawn " +
				"over lower ones; transparent elsewhere. A tile without any such facet, also in a BL without a solar pack, is a transparent " +
				"PNG (200), so a map shows no errors. The strong ETag changes with the published LoD2 and solar snapshots; If-None-Match " +
				"answers 304. Like the tile host, not counted against the keyless limit.",
			Params: []httpapi.Param{
				{Name: "z", In: "path", Type: "integer", Required: true, Example: 17, Min: httpapi.F64(buildings.SolarMinZoom), Max: httpapi.F64(buildings.SolarMaxZoom), Pattern: httpapi.TileIndexPattern, Desc: "zoom"},
				{Name: "x", In: "path", Type: "integer", Required: true, Example: 68628, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "column from the west, below 2^z"},
				{Name: "tile", In: "path", Type: "string", Required: true, Example: "44351.png", Pattern: `^[0-9]{1,9}\.png$`, Desc: "`<y>.png`, y the row from the north",
					Parse: parseSolarTile},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "PNG tile", ContentType: "image/png"}, {Status: 304, Desc: "Not modified"},
				httpapi.Resp400, httpapi.Resp404, {Status: 413, Desc: "The tile holds more surfaces than one tile may read", Schema: "Problem"}},
			Handle: s.handleSolarTile},
	}
}

func parseSolarTile(s string) (any, error) {
	return strconv.Atoi(strings.TrimSuffix(s, ".png"))
}

// solarGeneration names the published solar stores: a tile that carries
// their values changes when one is published or replaced.
func solarGeneration(v *catalog.View) string {
	var b strings.Builder
	for _, p := range v.Packs(pack.Solar) {
		if v.Solar(p.Manifest.BL) != nil {
			b.WriteString(p.Manifest.BL + ":" + p.Manifest.Snapshot + ";")
		}
	}
	return b.String()
}

// solarTileMeta is kept with a cached solar tile: the BL it starts in.
type solarTileMeta struct{ bl string }

func (s *surface) handleSolarTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	return s.serveSolarTile(w, r, in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile"))
}

func (s *surface) serveSolarTile(w http.ResponseWriter, r *http.Request, z, x, y int) error {
	if z < buildings.SolarMinZoom || z > buildings.SolarMaxZoom || x >= 1<<z || y >= 1<<z {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: zoom %d to %d, x and y below 2^z.", z, x, y, buildings.SolarMinZoom, buildings.SolarMaxZoom)
	}
	v, release := s.Catalog.Acquire()
	defer release()
	key := fmt.Sprintf("solar|%s|%s|%d/%d/%d", lod2Generation(v), solarGeneration(v), z, x, y)
	e, err := s.VectorTiles.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
		srcs := buildings.SolarSources(buildings.Sources(v), buildings.SolarStores(v))
		t, err := buildings.RenderSolarTile(ctx, srcs, z, x, y)
		if err != nil {
			return tilecache.Entry{}, err
		}
		return tilecache.Entry{Data: t.PNG, Meta: solarTileMeta{bl: t.BL}}, nil
	})
	var d *lod2store.DamagedError
	switch {
	case errors.As(err, &d):
		s.NoteDamage(d)
		return err
	case errors.Is(err, buildings.ErrTileTooLarge):
		return httpapi.Report(httpapi.ErrTooLarge, "Tile %d/%d/%d holds too many roofs to draw; ask for a higher zoom.", z, x, y)
	case err != nil:
		return err
	}
	if m, _ := e.Meta.(solarTileMeta); m.bl != "" {
		s.SetBL(r.Context(), m.bl)
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("ETag", e.ETag)
	h.Set("Cache-Control", "public, max-age=3600")
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, e.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Length", strconv.Itoa(len(e.Data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.Data)
	return nil
}

// solarLegend is the `legend` extension member of the solar TileJSON.
type solarLegend struct {
	Property    string        `json:"property"`
	Unit        string        `json:"unit"`
	Description string        `json:"description"`
	Stops       []solarStop   `json:"stops"`
	Classes     []solarBand   `json:"classes"`
	BestPlane   *solarBest    `json:"best_plane,omitempty"`
	Climate     []solarSource `json:"climate"`
}

type solarStop struct {
	KWhM2  float64 `json:"value"`
	Colour string  `json:"color"`
	Class  string  `json:"class,omitempty"`
}

type solarBand struct {
	Class    string   `json:"class"`
	MinShare float64  `json:"min_share_of_best"`
	MinKWhM2 *float64 `json:"min_kwh_m2,omitempty"`
	Colour   string   `json:"color,omitempty"`
}

// solarSource names the model and climate input of the stores of some BLs.
type solarSource struct {
	BL        []string `json:"bl"`
	Model     string   `json:"model"`
	Source    string   `json:"source"`
	File      string   `json:"file"`
	FirstYear int      `json:"first_year"`
	LastYear  int      `json:"last_year"`
}

func hexColour(kwhM2 float64) string {
	c := buildings.SolarColour(kwhM2)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

func (s *surface) handleSolarTileJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	stores := buildings.SolarStores(v)
	if len(stores) == 0 {
		return httpapi.Report(httpapi.ErrNotFound, "No solar pack is published for the published LoD2 data: the operator builds one with `svc build solar --bl BL`.")
	}
	codes := slices.Sorted(func(yield func(string) bool) {
		for c := range stores {
			if !yield(c) {
				return
			}
		}
	})
	bounds := [4]float64{180, 90, -180, -90}
	var attr []string
	leg := solarLegend{Property: "annual_kwh_m2", Unit: "kWh/m²",
		Description: "Annual solar irradiation on the roof facet's plane after shading (viridis; linear in sRGB between stops, held beyond the ends)"}
	best := int64(-1)
	for _, code := range codes {
		info := stores[code].Info()
		if lp, ok := v.Pack(pack.LoD2, code); ok {
			if m := lp.Manifest.BBoxWGS84; len(m) == 4 {
				bounds = [4]float64{math.Min(bounds[0], m[0]), math.Min(bounds[1], m[1]), math.Max(bounds[2], m[2]), math.Max(bounds[3], m[3])}
			}
			if a := lp.Manifest.AttributionText(); !slices.Contains(attr, a) {
				attr = append(attr, a)
			}
		}
		leg.Climate = addClimate(leg.Climate, code, info)
		// A store of the default climate has no one best plane (Best is
		// zero: each facet holds its cell's): no kWh/m² per class either.
		switch {
		case best == -1 && info.Best.AnnualWhM2 > 0:
			best = info.Best.AnnualWhM2
			leg.BestPlane = &solarBest{TiltDeg: info.Best.TiltDeg, AzimuthDeg: info.Best.AzimuthDeg, AnnualKWhM2: r2(float64(best) / 1000)}
		case best != info.Best.AnnualWhM2:
			best = 0 // the stores disagree: no kWh/m² per class
			leg.BestPlane = nil
		}
	}
	if bounds[0] > bounds[2] {
		bounds = [4]float64{-180, -85.0511, 180, 85.0511}
	}
	for _, c := range leg.Climate {
		attr = append(attr, fmt.Sprintf("Solar irradiation: %s; climate %s %d–%d (%s)", c.Model, c.Source, c.FirstYear, c.LastYear, c.File))
	}
	for _, st := range buildings.SolarRamp {
		stop := solarStop{KWhM2: st.KWhM2, Colour: fmt.Sprintf("#%02x%02x%02x", st.Colour.R, st.Colour.G, st.Colour.B)}
		if best > 0 {
			stop.Class = roofsolar.Class(st.KWhM2 * 1000 / float64(best))
		}
		leg.Stops = append(leg.Stops, stop)
	}
	for _, c := range roofsolar.Classes {
		band := solarBand{Class: c.Name, MinShare: c.MinShare}
		if best > 0 && c.MinShare > 0 {
			kwh := r2(c.MinShare * float64(best) / 1000)
			band.MinKWhM2, band.Colour = &kwh, hexColour(kwh)
		}
		leg.Classes = append(leg.Classes, band)
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": "svc solar potential of roofs", "scheme": "xyz", "format": "png",
		"tiles":   []string{s.BaseURL + solarTileBase + "/{z}/{x}/{y}.png"},
		"minzoom": buildings.SolarMinZoom, "maxzoom": buildings.SolarMaxZoom, "bounds": bounds[:], "tileSize": buildings.SolarTileSize,
		"attribution": strings.Join(attr, "; "), "legend": legendText(leg), "solar_legend": leg})
}

// legendText is the TileJSON `legend` (a string, TileJSON 3.0.0 section
// 3.11, which clients may show as literal text): the ramp and the classes
// in words.
func legendText(l solarLegend) string {
	var b strings.Builder
	b.WriteString("Annual solar irradiation on the roof facet's plane after shading, kWh/m² (viridis):")
	for i, s := range l.Stops {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %g %s", sep, s.KWhM2, s.Colour)
	}
	b.WriteString(". Classes by share of the best plane's irradiation:")
	for i, c := range l.Classes {
		sep := ","
		if i == 0 {
			sep = ""
		}
		if c.MinShare == 0 {
			fmt.Fprintf(&b, "%s %s below", sep, strings.ReplaceAll(c.Class, "_", " "))
			continue
		}
		fmt.Fprintf(&b, "%s %s from %g %%", sep, strings.ReplaceAll(c.Class, "_", " "), math.Round(c.MinShare*100))
		if c.MinKWhM2 != nil {
			fmt.Fprintf(&b, " (%g kWh/m²)", *c.MinKWhM2)
		}
	}
	b.WriteString(".")
	return b.String()
}

// addClimate adds BL code to the entry of info's model and climate.
func addClimate(list []solarSource, code string, info solarstore.Info) []solarSource {
	c := solarSource{Model: info.Model, Source: info.Climate.Source, File: info.Climate.File,
		FirstYear: info.Climate.FirstYear, LastYear: info.Climate.LastYear}
	for i := range list {
		e := list[i]
		if e.Model == c.Model && e.Source == c.Source && e.File == c.File && e.FirstYear == c.FirstYear && e.LastYear == c.LastYear {
			list[i].BL = append(list[i].BL, code)
			return list
		}
	}
	c.BL = []string{code}
	return append(list, c)
}
