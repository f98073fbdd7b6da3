package importer

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// Mode says how raster sources become a pack (spec 2.7 `source`).
type Mode string

// The raster import modes.
const (
	// ModeConvert rewrites every source (GeoTIFF of any layout, XYZ) as a
	// COG: float32, 512 px tiles, DEFLATE with predictor 3, overviews,
	// NoData -9999, values unchanged. Listed as `convert+storage-box`.
	ModeConvert Mode = "convert"
	// ModeMirror copies sources that already are tiled GeoTIFFs (COGs)
	// byte for byte. Listed as `mirror`.
	ModeMirror Mode = "mirror"
	// ModePassThrough stores only the index of remote COG URLs, read live
	// with HTTP range requests. Listed as `pass-through`. Terrain only.
	ModePassThrough Mode = "pass-through"
)

// sourceLabel is the spec 2.7 `source` value of a mode.
func (m Mode) sourceLabel() string {
	if m == ModeConvert {
		return "convert+storage-box"
	}
	return string(m)
}

// DGMOptions configure DGM.
type DGMOptions struct {
	CRS    string // EPSG:25832 or EPSG:25833; "" means the BL's usual CRS
	Mode   Mode   // "" means ModeConvert
	Client *http.Client
	// Summary, when set, receives what the import did tile by tile.
	Summary *RasterSummary
}

// DGM imports DGM1 terrain tiles (paths: GeoTIFF files, XYZ files, .gz,
// directories, .zip archives, or http(s) COG URLs in pass-through mode) into
// a new terrain pack of c.BL and c.Snapshot and publishes it. Each source
// becomes one tile named after its file stem; tile names must be unique.
// Errors name the file (and line for XYZ); on error nothing is published
// and the previous snapshot stays.
func DGM(ctx context.Context, c Common, o DGMOptions, paths []string) (_ pack.Manifest, err error) {
	lc, err := newRasterImport(c, o.CRS, o.Mode, true)
	if err != nil {
		return pack.Manifest{}, err
	}
	lc.client, lc.summary = o.Client, o.Summary
	key := pack.Key{Product: pack.Terrain, BL: c.BL, Snapshot: c.Snapshot}
	if err := lc.start(key); err != nil {
		return pack.Manifest{}, err
	}
	defer func() { lc.close(err) }()
	tiles, recs, err := lc.layer(ctx, "tiles", paths)
	if err != nil {
		return pack.Manifest{}, err
	}
	w, err := pack.Create(c.DataDir, key)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	defer w.Abort()
	if err := lc.assemble(w, recs); err != nil {
		return pack.Manifest{}, err
	}
	ix := terrain.Index{EPSG: lc.epsg, Layers: map[string][]terrain.Tile{terrain.LayerDGM: tiles}}
	if err := terrain.WriteIndex(filepath.Join(w.Dir(), terrain.IndexName), ix); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	m := c.manifest(lc.st)
	m.CRS = "EPSG:" + strconv.Itoa(lc.epsg)
	m.BBoxWGS84 = terrain.EnvelopeWGS84(lc.zone, tiles)
	m.Terrain = &pack.TerrainInfo{Format: "GeoTIFF (COG)", Source: lc.mode.sourceLabel(), TileCount: int64(len(tiles)),
		VerticalDatum: "DHHN2016", Index: terrain.IndexName}
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	lc.finish()
	return m, nil
}

// rasterImport holds what every raster layer import shares.
type rasterImport struct {
	c       Common
	st      bl.State
	epsg    int
	zone    geo.Zone
	mode    Mode
	client  *http.Client
	mask    *bridgeMask    // vegetation: bridge decks to blank out, or nil
	maskSHA string         // SHA-256 of the bridge mask file
	place   *placeCheck    // where the tiles lie
	role    *roleStats     // pixel samples of the layer being imported
	workers int            // Common.Workers, or runtime.NumCPU()
	summary *RasterSummary // or nil
	work    *rasterWork    // nil in pass-through mode
	recipe  string         // how a source becomes a tile, for reuse
	mu      sync.Mutex     // guards prog, last and the summary
	prog    Progress
	last    time.Time
}

func newRasterImport(c Common, crs string, mode Mode, passThroughOK bool) (*rasterImport, error) {
	st, err := c.check()
	if err != nil {
		return nil, err
	}
	epsg := st.EPSG
	if crs != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(crs), "EPSG:"))
		if err != nil {
			return nil, fmt.Errorf("%w: CRS %q is not EPSG:25832 or EPSG:25833", ErrOptions, crs)
		}
		epsg = n
	}
	z, err := geo.ZoneForEPSG(epsg)
	if err != nil {
		return nil, fmt.Errorf("%w: CRS EPSG:%d is not EPSG:25832 or EPSG:25833", ErrOptions, epsg)
	}
	if mode == "" {
		mode = ModeConvert
	}
	if mode != ModeConvert && mode != ModeMirror && (mode != ModePassThrough || !passThroughOK) {
		return nil, fmt.Errorf("%w: mode %q (convert or mirror%s)", ErrOptions, mode,
			map[bool]string{true: " or pass-through", false: ""}[passThroughOK])
	}
	return &rasterImport{c: c, st: st, epsg: epsg, zone: z, mode: mode}, nil
}

// checkLayer refuses, unless Common.Force, a layer whose tiles lie mostly
// outside the BL or whose values look like another role.
func (ri *rasterImport) checkLayer(sub string) error {
	if ri.c.Force {
		return nil
	}
	if why, suggest := ri.place.problem(); why != "" {
		return wrongBL(ri.st, []string{why}, suggest)
	}
	return ri.role.checkRole(sub)
}

// checkInputs rejects duplicate tile names and inputs the mode cannot take.
func (ri *rasterImport) checkInputs(ins []rasterInput) error {
	seen := map[string]string{}
	for _, in := range ins {
		if prev, dup := seen[in.stem]; dup {
			return fmt.Errorf("%w: %s and %s give the same tile name %q", ErrOptions, prev, in.name, in.stem)
		}
		seen[in.stem] = in.name
		switch {
		case ri.mask != nil && (in.kind == kindURL || (in.kind == kindTIFF && ri.mode == ModeMirror)):
			return fmt.Errorf("%w: a bridge mask needs --mode convert (mirrored and remote COGs stay unchanged)", ErrOptions)
		case (ri.mode == ModePassThrough) != (in.kind == kindURL):
			return fmt.Errorf("%w: %s: pass-through takes http(s) COG URLs only, and only pass-through takes URLs", ErrOptions, in.name)
		case ri.mode == ModeMirror && in.kind != kindTIFF:
			return fmt.Errorf("%w: %s: mirror mode keeps COGs as they are; XYZ needs --mode convert", ErrOptions, in.name)
		}
	}
	return nil
}

// report passes the progress on, at most every 100 ms unless force; the
// caller holds ri.mu.
func (ri *rasterImport) report(force bool) {
	if ri.c.Progress == nil || (!force && time.Since(ri.last) < 100*time.Millisecond) {
		return
	}
	ri.last = time.Now()
	ri.c.Progress(ri.prog)
}
