package dataapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/solar/climate/germany"
)

const discoveryCache = "public, max-age=300"

// DiscoveryRoutes are the dataset list and the attribution.
func DiscoveryRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	list := func(op, path, summary, schema, stability string, h func(*catalog.View) any) httpapi.Route {
		// The body depends only on the published view: it is made once per
		// view (a reload publishes a new one) and then written as is.
		var last atomic.Pointer[viewBody]
		return httpapi.Route{
			Method: "GET", Path: path, OpID: op, Summary: summary, Tag: "Discovery",
			Stability: stability, Since: "0.1.0",
			Responses: []httpapi.Response{{Status: 200, Desc: "Published datasets", Schema: schema, Headers: []string{"Cache-Control"}}},
			Handle: func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
				v := s.Catalog.Current()
				vb := last.Load()
				if vb == nil || vb.view != v {
					body, err := json.Marshal(h(v))
					if err != nil {
						return fmt.Errorf("encode response: %w", err)
					}
					vb = &viewBody{view: v, body: append(body, '\n')}
					last.Store(vb)
				}
				hd := w.Header()
				hd["Content-Type"], hd["Cache-Control"] = hdrJSON, hdrDiscoveryCache
				w.WriteHeader(http.StatusOK)
				if r.Method != http.MethodHead {
					_, _ = w.Write(vb.body)
				}
				return nil
			},
		}
	}
	return []httpapi.Route{
		func() httpapi.Route {
			rt := list("listDatasets", "/v1/datasets", "List the LoD2 building datasets (one per federal state)", "LoD2DatasetList", "stable",
				func(v *catalog.View) any { return s.lod2Datasets(v) })
			rt.Exempt = true
			return rt
		}(),
		list("listTerrainDatasets", "/v1/terrain/datasets", "List the DGM1 terrain datasets", "TerrainDatasetList", "stable",
			func(v *catalog.View) any { return s.terrainDatasets(v) }),
		list("listTerrainMeshDatasets", "/v1/terrain-mesh/datasets", "List the terrain mesh 3D Tiles datasets", "TerrainMeshDatasetList", "beta",
			func(v *catalog.View) any { return s.terrainMeshDatasets(v) }),
		func() httpapi.Route {
			rt := list("listOsmCoverDatasets", "/v1/osm-cover/datasets", "List the OpenStreetMap land cover 3D Tiles datasets", "OsmCoverDatasetList", "beta",
				func(v *catalog.View) any { return s.osmCoverDatasets(v) })
			rt.Desc = "Built by `svc import osm` and `svc build osm-cover` from an OpenStreetMap extract (ODbL 1.0, attribution " +
				"`© OpenStreetMap contributors`). Themes, each a 3D Tiles 1.1 tileset with one GLB per DGM tile (per 1 km cell for the sea): " +
				"`surface` (land-cover areas; classes forest, grass, meadow, farmland, scrub, park, water, wetland, residential, commercial, " +
				"industrial, retail, square, parking, sport, cemetery, hedge, beach), `transport` (roads, paths and rails as ribbons of their " +
				"`width` tag, else `lanes` x 3.25 m, else a class default; bridges at deck height between the ground at their ends; tunnels " +
				"left out), `canopy` (the BL's vegetation surface from its CDSM; absent without a vegetation pack) and `sea` (flat at 0 m " +
				"DHHN2016, from `natural=coastline`, land on its left; present only where the extract has a coastline). Areas and ribbons " +
				"are cut on a 10 m grid and draped 0.2 m (transport 0.35 m) above the terrain mesh of the same DGM. Each feature carries " +
				"`class`, `osm_id` and `name` (EXT_mesh_features, EXT_structural_metadata). Heights are ellipsoidal (`height_model`). " +
				"`bbox` is the extent of the imported features: those lying in the BL's boundary, cut to the extent of its DGM."
			return rt
		}(),
		func() httpapi.Route {
			rt := list("listVegetationDatasets", "/v1/vegetation/datasets", "List the vegetation datasets (canopy rasters and 3D Tiles)", "VegetationDatasetList", "beta",
				func(v *catalog.View) any { return s.vegetationDatasets(v) })
			rt.Desc = "Each dataset has four themes: `cdsm` and `tdsm` (raster_cog; `url` is the base of the COG directory, the sampling source " +
				"of /v1/vegetation/canopy on a grid of `tile_size_m`; the COG files and their extents are listed in `index.json` beside " +
				"the theme directories, since the tile host lists no directories), `trees` (3dtiles: one glb per tile, a trunk-and-crown model drawn per " +
				"detected tree with EXT_mesh_gpu_instancing) and `plantcover` (3dtiles: Draco b3dm, an RTIN mesh of ground plus canopy). " +
				"Snapshot dependence: from snapshot 2026-07-20 for be, he and ni the plantcover carries per-vertex COLOR_0 (R = crown height " +
				"above ground over 0 to 50 m, G and B = class colour: shrub 2-5 m, low 5-15 m, tall from 15 m) and has no curtain triangles; " +
				"older snapshots have neither. Where an official bridge mask was imported, decks buffered by 1.0 m are removed from the " +
				"rasters (canopy answers 404 there); be has no official source. Heights of the 3D Tiles are DHHN2016 placed as ellipsoidal heights."
			return rt
		}(),
		func() httpapi.Route {
			rt := list("getAttribution", "/v1/attribution", "Licence and attribution of every published product", "AttributionList", "stable",
				func(v *catalog.View) any { return s.attribution(v) })
			rt.Exempt = true
			rt.Desc = "One entry per published product and federal state: the source authority, the licence with its URL, " +
				"and the display string a client must show. Entries whose licence is not DL-DE/Zero 2.0 require the source to be shown visibly. " +
				"Exempt from the keyless daily limit so that every client can always meet its licence obligations."
			return rt
		}(),
	}
}

// attributionText is the display string of a pack (pack.Manifest.AttributionText).
func attributionText(m pack.Manifest) string { return m.AttributionText() }

func sourceName(m pack.Manifest) string { return m.Source() }

func finished(m pack.Manifest) string {
	if m.ImportFinishedAt == nil {
		return ""
	}
	return m.ImportFinishedAt.UTC().Format(time.RFC3339)
}

func (s *surface) tileURL(m pack.Manifest, rel string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s", s.TilesURL, m.Product, m.BL, m.Snapshot, rel)
}

type lod2Dataset struct {
	ID                string   `json:"id"`
	BundeslandCode    string   `json:"bundesland_code"`
	Name              string   `json:"name"`
	LicenseID         string   `json:"license_id"`
	SourceURL         string   `json:"source_url"`
	SnapshotDate      string   `json:"snapshot_date"`
	BuildingCount     int64    `json:"building_count"`
	ValidationPassPct *float64 `json:"validation_pass_pct"`
	LastSync          string   `json:"last_sync"`
}

func (s *surface) lod2Datasets(v *catalog.View) any {
	out := []lod2Dataset{}
	for _, p := range v.Packs(pack.LoD2) {
		m := p.Manifest
		d := lod2Dataset{ID: m.BL, BundeslandCode: m.BL, Name: m.Name, LicenseID: m.LicenseID,
			SourceURL: m.SourceURL, SnapshotDate: m.Snapshot, LastSync: finished(m)}
		if d.Name == "" {
			st, _ := bl.Lookup(m.BL)
			d.Name = fmt.Sprintf("LoD2 %s — %s", st.Name, attributionText(m))
		}
		if m.LoD2 != nil {
			d.BuildingCount, d.ValidationPassPct = m.LoD2.BuildingCount, m.LoD2.ValidationPassPct
		}
		out = append(out, d)
	}
	return map[string]any{"datasets": out, "count": len(out)}
}

type terrainDataset struct {
	BL            string   `json:"bl"`
	License       string   `json:"license"`
	Snapshot      string   `json:"snapshot"`
	Format        string   `json:"format"`
	Source        string   `json:"source"`
	TileCount     int64    `json:"tile_count"`
	CRS           string   `json:"crs"`
	VerticalDatum string   `json:"vertical_datum"`
	Attribution   string   `json:"attribution"`
	CoveragePct   *float64 `json:"coverage_pct"`
}

func (s *surface) terrainDatasets(v *catalog.View) any {
	out := []terrainDataset{}
	for _, p := range v.Packs(pack.Terrain) {
		m := p.Manifest
		d := terrainDataset{BL: m.BL, License: m.LicenseID, Snapshot: m.Snapshot, CRS: m.CRS,
			Attribution: attributionText(m), Format: "GeoTIFF (COG)", VerticalDatum: "DHHN2016"}
		if t := m.Terrain; t != nil {
			d.Source, d.TileCount = t.Source, t.TileCount
			if t.Format != "" {
				d.Format = t.Format
			}
			if t.VerticalDatum != "" {
				d.VerticalDatum = t.VerticalDatum
			}
		}
		out = append(out, d)
	}
	return map[string]any{"datasets": out, "count": len(out)}
}

type terrainMeshDataset struct {
	BundeslandCode string  `json:"bundesland_code"`
	SnapshotDate   string  `json:"snapshot_date"`
	TilesetURL     string  `json:"tileset_url"`
	TileCount      int64   `json:"tile_count"`
	RTINToleranceM float64 `json:"rtin_tolerance_m"`
	TilingScheme   string  `json:"tiling_scheme"`
	License        string  `json:"license"`
	Attribution    string  `json:"attribution"`
	BuiltAt        string  `json:"built_at"`
	HeightModel    *string `json:"height_model"`
}

// heightModel is a 3D pack's height model for the listings; null for packs
// built before height models existed (DHHN2016 written as ellipsoidal).
func heightModel(m pack.Manifest) *string {
	if m.HeightModel == "" {
		return nil
	}
	return &m.HeightModel
}

func (s *surface) terrainMeshDatasets(v *catalog.View) any {
	out := []terrainMeshDataset{}
	for _, p := range v.Packs(pack.TerrainMesh) {
		m, t := p.Manifest, p.Manifest.TerrainMesh
		if t == nil {
			continue
		}
		out = append(out, terrainMeshDataset{BundeslandCode: m.BL, SnapshotDate: m.Snapshot,
			TilesetURL: s.tileURL(m, t.TilesetPath), TileCount: t.TileCount, RTINToleranceM: t.RTINToleranceM,
			TilingScheme: t.TilingScheme, License: m.LicenseID, Attribution: attributionText(m),
			BuiltAt: t.BuiltAt.UTC().Format(time.RFC3339), HeightModel: heightModel(m)})
	}
	return map[string]any{"datasets": out}
}

type coverTheme struct {
	Name       string `json:"name"`
	TilesetURL string `json:"tileset_url"`
	TileCount  int64  `json:"tile_count"`
}

type osmCoverDataset struct {
	BundeslandCode string       `json:"bundesland_code"`
	SnapshotDate   string       `json:"snapshot_date"`
	Themes         []coverTheme `json:"themes"`
	BBox           []float64    `json:"bbox"`
	License        string       `json:"license"`
	Attribution    string       `json:"attribution"`
	BuiltAt        string       `json:"built_at"`
	HeightModel    *string      `json:"height_model"`
}

func (s *surface) osmCoverDatasets(v *catalog.View) any {
	out := []osmCoverDataset{}
	for _, p := range v.Packs(pack.OSMCover) {
		m, c := p.Manifest, p.Manifest.OSMCover
		if c == nil {
			continue
		}
		d := osmCoverDataset{BundeslandCode: m.BL, SnapshotDate: m.Snapshot, BBox: m.BBoxWGS84,
			License: m.LicenseID, Attribution: attributionText(m), BuiltAt: c.BuiltAt.UTC().Format(time.RFC3339),
			Themes: []coverTheme{}, HeightModel: heightModel(m)}
		for _, t := range c.Themes {
			d.Themes = append(d.Themes, coverTheme{t.Name, s.tileURL(m, t.Path), t.TileCount})
		}
		out = append(out, d)
	}
	return map[string]any{"datasets": out}
}

type vegTheme struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	URL  string `json:"url"`
}

type vegetationDataset struct {
	BundeslandCode string     `json:"bundesland_code"`
	Snapshot       string     `json:"snapshot"`
	CRS            string     `json:"crs"`
	TileSizeM      float64    `json:"tile_size_m"`
	License        string     `json:"license"`
	Attribution    string     `json:"attribution"`
	Themes         []vegTheme `json:"themes"`
	HeightModel    *string    `json:"height_model"`
}

func (s *surface) vegetationDatasets(v *catalog.View) any {
	out := []vegetationDataset{}
	for _, p := range v.Packs(pack.Vegetation) {
		m, vi := p.Manifest, p.Manifest.Vegetation
		if vi == nil {
			continue
		}
		d := vegetationDataset{BundeslandCode: m.BL, Snapshot: m.Snapshot, CRS: m.CRS, TileSizeM: vi.TileSizeM,
			License: m.LicenseID, Attribution: attributionText(m), Themes: []vegTheme{}, HeightModel: heightModel(m)}
		for _, t := range vi.Themes {
			d.Themes = append(d.Themes, vegTheme{t.Name, t.Kind, s.tileURL(m, t.Path)})
		}
		out = append(out, d)
	}
	return map[string]any{"datasets": out}
}

type attributionEntry struct {
	BundeslandCode string `json:"bundesland_code"`
	Product        string `json:"product"`
	Snapshot       string `json:"snapshot"`
	Source         string `json:"source"`
	License        string `json:"license"`
	LicenseID      string `json:"license_id"`
	URL            string `json:"url"`
	Attribution    string `json:"attribution"`
	MustDisplay    bool   `json:"must_display"`
}

func (s *surface) attribution(v *catalog.View) any {
	out := []attributionEntry{}
	models := map[string]bool{} // IDs of the height models of the published 3D content
	for _, prod := range pack.Products() {
		if prod == pack.OSM {
			continue // the import's features: served only as osm-cover, which has its own entry
		}
		for _, p := range v.Packs(prod) {
			m := p.Manifest
			l := bl.LicenseOf(m.LicenseID)
			out = append(out, attributionEntry{BundeslandCode: m.BL, Product: string(prod), Snapshot: m.Snapshot,
				Source: sourceName(m), License: l.Label, LicenseID: m.LicenseID, URL: l.URL,
				Attribution: attributionText(m), MustDisplay: l.Attribution})
			if m.HeightModel != "" {
				models[m.HeightModel] = true
			}
			if prod == pack.Terrain { // the quantized-mesh terrain, lifted with the server's model
				models[s.HeightModel()] = true
			}
		}
	}
	if models[geoid.IDGCG2016] {
		l := bl.LicenseOf("cc-by-4.0")
		out = append(out, attributionEntry{Product: HeightModelProduct, Snapshot: gcg2016Snapshot,
			Source:  "Bundesamt für Kartographie und Geodäsie (BKG): German Combined Quasigeoid GCG2016, as distributed by PROJ",
			License: l.Label, LicenseID: l.ID, URL: l.URL, Attribution: geoid.GCG2016Credit, MustDisplay: l.Attribution})
	}
	if s.Climate == nil && s.DefaultClimate != nil && len(v.Packs(pack.LoD2)) > 0 { // the solar route answers from it
		l := bl.LicenseOf("cc-by-4.0")
		out = append(out, attributionEntry{Product: SolarClimateProduct, Snapshot: germany.Compiled, Source: germany.Source,
			License: l.Label, LicenseID: l.ID, URL: l.URL, Attribution: germany.Attribution, MustDisplay: l.Attribution})
	}
	return map[string]any{"attribution": out, "count": len(out)}
}

// SolarClimateProduct is the product of the /v1/attribution entry of the
// built-in default climate, listed while the solar route uses it (no
// --irradiance file) and a LoD2 pack is published; its bundesland_code is "".
const SolarClimateProduct = "solar-climate"

// HeightModelProduct is the product of the /v1/attribution entry of the
// height model: the 3D content's heights carry its undulation. Its
// bundesland_code is "" (the model covers all of Germany).
const HeightModelProduct = "height-model"

// gcg2016Snapshot is the date of the embedded GCG2016 grid file (the TIFF
// date of PROJ-data's de_bkg_gcg2016.tif).
const gcg2016Snapshot = "2023-10-05"

// viewBody is a response body made for one published view.
type viewBody struct {
	view *catalog.View
	body []byte
}

var hdrDiscoveryCache = []string{discoveryCache}
