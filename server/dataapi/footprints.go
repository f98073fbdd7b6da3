package dataapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tilecache"
)

// Footprint tiles: the ground surfaces of the LoD2 buildings on a fixed
// Web Mercator grid, for map clients (the built-in viewer draws its
// footprints from them). Like every other tile route they are not counted
// against the keyless limit: the grid is fixed and the answers cacheable,
// and they hold nothing the uncounted 3D Tiles of the same buildings do not
// already give. Search, detail and roof stay counted.
const (
	footprintBase = "/v1/buildings/footprints"
	footprintZoom = 15
	// footprintCap bounds one tile's answer (about 20 MB); a z15 tile of
	// the densest German city centre holds a few thousand buildings.
	footprintCap  = 20000
	footprintPage = 5000
)

// FootprintRoutes are the footprint tile routes.
func FootprintRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	return []httpapi.Route{
		{Method: "GET", Path: footprintBase + "/{z}/{x}/{tile}", OpID: "getFootprintTile", Tag: "Buildings", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "Building footprints (ground surfaces) of one Web Mercator tile (beyond the spec)",
			Desc: "The ground surfaces (class 710) of every published BL that meet the tile, as a GeoJSON FeatureCollection shaped like the " +
				"answer of /v1/buildings (`next` is always empty). Web Mercator XYZ grid (y from the north, as OpenStreetMap), zoom " +
				strconv.Itoa(footprintZoom) + " only: a fixed grid, so answers are cached, here and by clients (strong ETag that changes with the " +
				"published snapshots, If-None-Match answers 304). A " +
				"footprint crossing a tile border is in every tile it meets; `surface_id` (with `bundesland`) tells the copies apart, and " +
				"`building_id` (with `bundesland`) groups the parts of one building. At most " + strconv.Itoa(footprintCap) +
				" surfaces per tile (`svc.warnings` says when a tile has more). Like the tile host, not counted against the keyless limit: " +
				"map clients and the built-in viewer draw from it while panning; the same geometry is in the uncounted 3D Tiles.",
			Params: []httpapi.Param{
				{Name: "z", In: "path", Type: "integer", Required: true, Example: footprintZoom, Min: httpapi.F64(footprintZoom), Max: httpapi.F64(footprintZoom), Pattern: httpapi.TileIndexPattern, Desc: "zoom (" + strconv.Itoa(footprintZoom) + ")"},
				{Name: "x", In: "path", Type: "integer", Required: true, Example: 17157, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "column from the west, below 2^z"},
				{Name: "tile", In: "path", Type: "string", Required: true, Example: "11087.geojson", Pattern: `^[0-9]{1,9}\.geojson$`, Desc: "`<y>.geojson`, y the row from the north",
					Parse: parseFootprintTile},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "GeoJSON FeatureCollection of ground surfaces", Schema: "BuildingSearchResponse", ContentType: "application/geo+json"},
				{Status: 304, Desc: "Not modified"}, httpapi.Resp400, httpapi.Resp404, httpapi.Resp422},
			Handle: s.handleFootprintTile},
	}
}

func parseFootprintTile(s string) (any, error) {
	return strconv.Atoi(strings.TrimSuffix(s, ".geojson"))
}

// tileBBox is the WGS84 extent of Web Mercator tile z/x/y.
func tileBBox(z, x, y int) geo.BBox {
	n := float64(int(1) << z)
	lon := func(x int) float64 { return float64(x)/n*360 - 180 }
	lat := func(y int) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*float64(y)/n))) * 180 / math.Pi }
	return geo.BBox{MinLon: lon(x), MinLat: lat(y + 1), MaxLon: lon(x + 1), MaxLat: lat(y)}
}

func (s *surface) handleFootprintTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	z, x, y := in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile")
	if x >= 1<<z || y >= 1<<z {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: x and y are below 2^z.", z, x, y)
	}
	v, release := s.Catalog.Acquire()
	defer release()
	key := fmt.Sprintf("fp|%s|%d/%d/%d", lod2Generation(v), z, x, y)
	e, err := s.Footprints.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
		return s.footprintTile(ctx, v, tileBBox(z, x, y))
	})
	var d *damagedTile
	if errors.As(err, &d) {
		e, err = d.Entry, nil // served, not kept: the BL may be repaired under the same snapshot
		sum := sha256.Sum256(d.Data)
		e.ETag = `"fp-damaged-` + hex.EncodeToString(sum[:12]) + `"`
	}
	if err != nil {
		return err
	}
	meta, _ := e.Meta.(footprintMeta)
	if meta.bl != "" {
		s.SetBL(r.Context(), meta.bl)
	}
	h := w.Header()
	h.Set("Content-Type", "application/geo+json")
	h.Set("ETag", e.ETag)
	h.Set("Cache-Control", "public, max-age=300")
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, e.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	body := e.Data
	if meta.gz != nil && httpapi.AcceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = meta.gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
	return nil
}

// footprintMeta is kept with a cached footprint tile: the BL it starts in
// (for usage by BL) and its gzip encoding (GeoJSON shrinks about 6 times,
// and a tile of a town centre is a few MB).
type footprintMeta struct {
	bl string
	gz []byte
}

// damagedTile carries a tile answered while a BL's data was damaged: it is
// sent but not cached.
type damagedTile struct{ tilecache.Entry }

func (d *damagedTile) Error() string { return "server: footprint tile with damaged LoD2 data" }

// footprintTile gathers the ground surfaces of every published BL that meet
// bbox, up to footprintCap, as a search body; Meta is a footprintMeta.
func (s *surface) footprintTile(ctx context.Context, v *catalog.View, bbox geo.BBox) (tilecache.Entry, error) {
	var (
		hits     []lod2store.FedHit
		after    lod2store.Position
		warnings []string
		damaged  bool
	)
	srcs := buildings.Sources(v)
	for {
		page, err := buildings.Search(ctx, srcs, bbox, after, footprintPage, lod2store.Filter{Class: lod2store.ClassGround})
		if err != nil {
			return tilecache.Entry{}, err
		}
		if len(page.Damaged) > 0 && !damaged {
			damaged, warnings = true, s.damagedWarnings(page.Damaged)
		}
		hits = append(hits, page.Hits...)
		if page.Next == nil {
			break
		}
		if len(hits) >= footprintCap {
			hits = hits[:footprintCap]
			warnings = append(warnings, fmt.Sprintf("The tile has more than %d ground surfaces; the first %d are returned.", footprintCap, footprintCap))
			break
		}
		after = *page.Next
	}
	buf, err := searchBody(v, buildings.Page{Hits: hits}, bbox, footprintCap, warnings)
	if err != nil {
		return tilecache.Entry{}, err
	}
	defer httpapi.PutBuffer(buf)
	var meta footprintMeta
	if len(hits) > 0 {
		meta.bl = hits[0].BL
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	_, _ = zw.Write(buf.Bytes())
	if zw.Close() == nil {
		meta.gz = gz.Bytes()
	}
	e := tilecache.Entry{Data: bytes.Clone(buf.Bytes()), Meta: meta}
	if damaged {
		return tilecache.Entry{}, &damagedTile{e}
	}
	return e, nil
}

// lod2Generation names the published LoD2 snapshots: a footprint tile's
// cache key and ETag change with them.
func lod2Generation(v *catalog.View) string {
	var b strings.Builder
	for _, p := range v.Packs(pack.LoD2) {
		b.WriteString(p.Manifest.BL + ":" + p.Manifest.Snapshot + ";")
	}
	return b.String()
}
