package terrainapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/qmesh"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/terrain"
)

const qmeshBase = "/v1/terrain/quantized-mesh"

// QuantizedMeshRoutes are the quantized-mesh terrain routes.
func QuantizedMeshRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	return []httpapi.Route{
		{Method: "GET", Path: qmeshBase + "/layer.json", OpID: "getQuantizedMeshLayer", Tag: "Terrain", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "Quantized-mesh terrain for CesiumJS: layer.json (beyond the spec)",
			Desc: "The DGM of every published BL as quantized-mesh-1.0 terrain (geographic tiling scheme, TMS rows, levels 0-" +
				strconv.Itoa(qmesh.MaxZoom) + ", extension `octvertexnormals`): in CesiumJS " +
				"`viewer.terrainProvider = await Cesium.CesiumTerrainProvider.fromUrl('<base>/v1/terrain/quantized-mesh/', {requestVertexNormals: true})`. " +
				"Heights are ellipsoidal (DHHN2016 plus the server's height model, see `height_model` in the tileset listings), so buildings " +
				"and the other 3D Tiles sit on it. Every tile of every level is available: outside the data a tile is the geoid surface. " +
				"The two tiles of level 0 span a hemisphere each, too much for a horizon occlusion point; their header carries NaN there " +
				"(the format has no 'none'), which CesiumJS treats like a tile without a point: never culled by the horizon. " +
				"Like the tile host, not counted against the keyless limit.",
			Responses: []httpapi.Response{{Status: 200, Desc: "TileJSON 2.1 layer description", Schema: "QuantizedMeshLayer"}},
			Handle:    s.handleQMeshLayer},
		{Method: "GET", Path: qmeshBase + "/{z}/{x}/{tile}", OpID: "getQuantizedMeshTile", Tag: "Terrain", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "One quantized-mesh-1.0 terrain tile (beyond the spec)",
			Desc: "Built on demand from the DGM COGs: 65 x 65 samples per tile, a right-triangulated irregular network within half the " +
				"geometric error CesiumJS allows at the level (at least 0.25 m), every edge sample a vertex so that neighbours share " +
				"their edges (and Cesium's skirts from the edge indices close what remains between levels). Vertex normals are added when " +
				"the Accept header names `octvertexnormals` (CesiumJS does with requestVertexNormals) or with `extensions=octvertexnormals`. " +
				"Sent gzip-compressed to clients that accept it. Tiles are cached; the strong ETag changes when the data or height model " +
				"does, and If-None-Match answers 304.",
			Params: []httpapi.Param{
				{Name: "z", In: "path", Type: "integer", Required: true, Example: 15, Min: httpapi.F64(0), Max: httpapi.F64(qmesh.MaxZoom), Pattern: httpapi.TileIndexPattern, Desc: "Level"},
				{Name: "x", In: "path", Type: "integer", Required: true, Example: 34306, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "Column from -180°, below 2^(z+1)"},
				{Name: "tile", In: "path", Type: "string", Required: true, Example: "25502.terrain", Pattern: `^[0-9]{1,9}\.terrain$`, Desc: "`<y>.terrain`, y the TMS row from -90°, below 2^z",
					Parse: func(s string) (any, error) { return strconv.Atoi(strings.TrimSuffix(s, ".terrain")) }},
				{Name: "extensions", In: "query", Type: "string", Enum: []string{"octvertexnormals"}, Refuse: httpapi.ErrMalformed, Desc: "Extensions to include (alternative to the Accept header)"},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "The tile", ContentType: "application/vnd.quantized-mesh"},
				{Status: 304, Desc: "Not modified"}, httpapi.Resp400, httpapi.Resp404,
				{Status: 502, Desc: "A DGM tile could not be read", Schema: "Problem"}},
			Handle: s.handleQMeshTile},
	}
}

func (s *surface) handleQMeshLayer(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	var attr []string
	for _, p := range v.Packs(pack.Terrain) {
		if a := p.Manifest.AttributionText(); !slices.Contains(attr, a) {
			attr = append(attr, a)
		}
	}
	if c := geoid.Credit(s.QMesh.HeightModel()); c != "" && len(attr) > 0 {
		attr = append(attr, c) // the tiles' heights carry the model's undulation
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", qmesh.LayerJSON(strings.Join(attr, "; "), s.QMesh.HeightModel()))
}

func (s *surface) handleQMeshTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	z, x, y := in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile")
	t := qmesh.Tile{Z: z, X: x, Y: y}
	if err := t.Check(); err != nil {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: levels 0 to %d, x below 2^(z+1), y below 2^z.", z, x, y, qmesh.MaxZoom)
	}
	normals := in.Has("extensions") || strings.Contains(r.Header.Get("Accept"), "octvertexnormals")
	v, release := s.Catalog.Acquire()
	defer release()
	datasets := query.Datasets(v, pack.Terrain)
	res, err := s.QMesh.Tile(r.Context(), terrainGeneration(v), terrainSampler(datasets), t, normals)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/vnd.quantized-mesh")
	h.Set("ETag", res.ETag)
	h.Set("Cache-Control", "public, max-age=3600")
	h.Add("Vary", "Accept, Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, res.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	body := res.Gzip
	if httpapi.AcceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
	} else {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return err
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// terrainGeneration names the published DGM packs, so cached tiles of an
// earlier set are never served after a reload.
func terrainGeneration(v *catalog.View) string {
	var b strings.Builder
	for _, p := range v.Packs(pack.Terrain) {
		b.WriteString(p.Manifest.BL + ":" + p.Manifest.Snapshot + ";")
	}
	return b.String()
}

// terrainSampler samples the DGM of datasets (first valid value in BL
// order, as /v1/terrain/elevation); no coverage and NoData are "no value".
func terrainSampler(datasets []*terrain.Dataset) qmesh.Sampler {
	return func(ctx context.Context, lon, lat float64) (float64, bool, error) {
		h, err := terrain.Elevation(ctx, datasets, lon, lat)
		switch {
		case err == nil:
			return h.Value, true, nil
		case errors.Is(err, terrain.ErrOutside), errors.Is(err, terrain.ErrNoData):
			return 0, false, nil
		}
		return 0, false, err
	}
}
