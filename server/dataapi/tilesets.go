package dataapi

import (
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
)

// TilesetRoutes are the tileset routes.
func TilesetRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	// SPEC 4.3: a malformed id is 404 like an unknown one.
	idParam := httpapi.Param{Name: "tileset_id", In: "path", Type: "string", Format: "uuid", Required: true, Example: "eadbf31b-90c2-4ee7-9b3e-2006599f6498",
		Pattern: `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`, Refuse: httpapi.ErrNotFound,
		Desc: "tileset id (UUID); a new snapshot of a BL gets a new id"}
	return []httpapi.Route{
		{Method: "GET", Path: "/v1/tilesets", OpID: "listTilesets", Tag: "Tilesets", Stability: "stable", Since: "0.1.0",
			Summary: "Building 3D Tiles tilesets whose bounding volume meets a bbox",
			Desc: "One 3D Tiles 1.1 tileset of the LoD2 buildings per published BL snapshot (glb content, quadtree, EXT_mesh_features feature ids " +
				"per building with gmlid, building_id and the building's attributes (function and roof type code and AdV label, height_m, " +
				"ground/eaves/ridge height, storeys, footprint and roof area, municipality key, creation date; noData where absent; the schema is " +
				"declared in tileset.json, see docs/3d-tiles.md) in EXT_structural_metadata, for Cesium3DTileStyle and feature picking; " +
				"ECEF root transform; heights are DHHN2016 as the source has " +
				"them, not ellipsoidal). `tileset_url` loads directly in CesiumJS. The list comes from the packs on disk. `svc.attribution` holds one entry per BL listed. " +
				"The bbox has no size limit: the answer holds at most one tileset per BL (16), so even all of Germany is cheap.",
			Params:    []httpapi.Param{BBoxParam(true, "5.5,47.2,15.5,55.1", "WGS84 minLon,minLat,maxLon,maxLat")},
			Responses: []httpapi.Response{{Status: 200, Desc: "Tilesets meeting the bbox", Schema: "TilesetList", Headers: []string{"Cache-Control"}}, httpapi.Resp400},
			Handle:    s.handleTilesets},
		{Method: "GET", Path: "/v1/tilesets/{tileset_id}", OpID: "getTileset", Tag: "Tilesets", Stability: "stable", Since: "0.1.0",
			Summary: "One tileset record",
			Desc:    "The same fields as a list entry, without the attribution block. 404 for an unknown or malformed id.",
			Params:  []httpapi.Param{idParam},
			Responses: []httpapi.Response{{Status: 200, Desc: "Tileset", Schema: "Tileset", Headers: []string{"Cache-Control"}},
				{Status: 404, Desc: "Unknown or malformed tileset id", Schema: "Problem"}},
			Handle: s.handleTileset},
		{Method: "GET", Path: "/v1/tilesets/{tileset_id}/tileset.json", OpID: "getTilesetJson", Tag: "Tilesets", Stability: "stable", Since: "0.1.0",
			Summary: "Redirect to the tileset.json on the tile host",
			Desc: "Answers 302 Found with `Location: {tiles_url}/buildings/<bl>/<snapshot>/tileset.json` (temporary: a new snapshot gets a " +
				"new id, and the tile host may move); 404 for an unknown or malformed id.",
			Params: []httpapi.Param{idParam},
			Responses: []httpapi.Response{{Status: 302, Desc: "Found: Location is the tileset.json URL"},
				{Status: 404, Desc: "Unknown or malformed tileset id", Schema: "Problem"}},
			Handle: s.handleTilesetJSON},
		{Method: "GET", Path: "/v1/tilesets/{tileset_id}/{path...}", OpID: "getTilesetFile", Tag: "Tilesets", Stability: "beta", Since: "0.1.0",
			Exempt: true, Lax: true, Budget: httpapi.NoBudget,
			Summary: "Redirect to a file of the tileset on the tile host",
			Desc: "Viewers such as CesiumJS resolve the relative content URIs of a tileset.json against the URL they requested, not " +
				"the one a redirect led to; so a tileset opened through /v1/tilesets/{tileset_id}/tileset.json asks for its tiles here. " +
				"Answers 302 Found to the same path under `{tiles_url}/buildings/<bl>/<snapshot>/`; 404 for an unknown tileset or a path " +
				"with empty, dot or hidden segments. Like the tile host, not counted against the keyless limit.",
			Params: []httpapi.Param{idParam, {Name: "path", In: "path", Type: "string", Required: true, Example: "tiles/0_0_0.glb", Desc: "file path relative to tileset.json"}},
			Responses: []httpapi.Response{{Status: 302, Desc: "Found: Location is the file on the tile host"},
				{Status: 404, Desc: "Unknown tileset or invalid path", Schema: "Problem"}},
			Handle: s.handleTilesetFile},
	}
}

func (s *surface) handleTilesetFile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	rel := in.Str("path")
	if !fs.ValidPath(rel) || strings.Contains(strings.ToLower(r.URL.RawPath), "%2f") {
		return httpapi.Report(httpapi.ErrNotFound, "No tileset file %s.", httpapi.Clip(rel))
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") {
			return httpapi.Report(httpapi.ErrNotFound, "No tileset file %s.", httpapi.Clip(rel))
		}
	}
	v, release := s.Catalog.Acquire()
	defer release()
	m, err := s.findTileset(r, in, v)
	if err != nil {
		return err
	}
	base := path.Dir(m.Tileset.TilesetPath)
	w.Header().Set("Cache-Control", discoveryCache)
	// The path arrives decoded: escaped again segment by segment, a '?',
	// '#' or space in a file name stays part of the path of the Location.
	segs := strings.Split(path.Join(base, rel), "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	http.Redirect(w, r, s.tileURL(m, strings.Join(segs, "/")), http.StatusFound)
	return nil
}

// tilesetRecord is SPEC 2.2.
type tilesetRecord struct {
	TilesetID      string         `json:"tileset_id"`
	RegionCode     string         `json:"region_code"`
	BundeslandCode string         `json:"bundesland_code"`
	SnapshotDate   string         `json:"snapshot_date"`
	S3Key          string         `json:"s3_key"`
	TilesetURL     string         `json:"tileset_url"`
	TileCount      int64          `json:"tile_count"`
	TotalBytes     int64          `json:"total_bytes"`
	BuildingCount  int64          `json:"building_count"`
	GeneratedAt    string         `json:"generated_at"`
	BoundingVolume map[string]any `json:"bounding_volume"`
	HeightModel    *string        `json:"height_model"`
}

func (s *surface) tilesetRecord(m pack.Manifest) tilesetRecord {
	ti := m.Tileset
	b := ti.BoundingVolume
	ring := [][2]float64{}
	if len(b) == 4 {
		ring = [][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}
	}
	return tilesetRecord{TilesetID: ti.TilesetID, RegionCode: m.BL, BundeslandCode: m.BL, SnapshotDate: m.Snapshot,
		S3Key: string(m.Product) + "/" + m.BL + "/" + m.Snapshot + "/" + ti.TilesetPath, TilesetURL: s.tileURL(m, ti.TilesetPath),
		TileCount: ti.TileCount, TotalBytes: ti.TotalBytes, BuildingCount: ti.BuildingCount,
		GeneratedAt:    ti.GeneratedAt.UTC().Format(time.RFC3339),
		BoundingVolume: map[string]any{"type": "Polygon", "coordinates": [][][2]float64{ring}}, HeightModel: heightModel(m)}
}

func (s *surface) handleTilesets(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	bbox := httpapi.ParsedAs[geo.BBox](in, "bbox")
	v, release := s.Catalog.Acquire()
	defer release()
	list := []tilesetRecord{}
	attr := []map[string]any{}
	for _, m := range v.Tilesets(bbox) {
		list = append(list, s.tilesetRecord(m))
		l := bl.LicenseOf(m.LicenseID)
		attr = append(attr, map[string]any{"source": sourceName(m), "license": l.Label, "url": l.URL, "tiles_count": m.Tileset.TileCount})
	}
	if len(list) > 0 {
		s.SetBL(r.Context(), list[0].BundeslandCode)
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, discoveryCache, map[string]any{"tilesets": list, "count": len(list),
		"bbox": []float64{bbox.MinLon, bbox.MinLat, bbox.MaxLon, bbox.MaxLat}, "svc": map[string]any{"attribution": attr}})
}

// findTileset resolves the tileset_id of the path.
func (s *surface) findTileset(r *http.Request, in *httpapi.Input, v *catalog.View) (pack.Manifest, error) {
	m, err := v.Tileset(in.Str("tileset_id"))
	if err != nil {
		return m, httpapi.Report(catalog.ErrNoTileset, "No tileset with id %s; a new snapshot of a BL gets a new id, see /v1/tilesets.", in.Str("tileset_id"))
	}
	s.SetBL(r.Context(), m.BL)
	return m, nil
}

func (s *surface) handleTileset(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	m, err := s.findTileset(r, in, v)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, discoveryCache, s.tilesetRecord(m))
}

func (s *surface) handleTilesetJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	m, err := s.findTileset(r, in, v)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", discoveryCache)
	http.Redirect(w, r, s.tileURL(m, m.Tileset.TilesetPath), http.StatusFound)
	return nil
}
