package terrain

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// Dataset is an opened terrain or vegetation pack of one BL and snapshot.
// It is the catalog handle of such a pack (an io.Closer with a Probe
// method) and is safe for concurrent use.
type Dataset struct {
	Manifest pack.Manifest
	Zone     geo.Zone // UTM zone of the tiles
	layers   map[string]*Layer
	// bboxWGS84 is a slightly widened lon/lat envelope of all tiles, to
	// skip datasets far from a point without projecting.
	bboxWGS84 geo.BBox
}

// Options configure OpenPack.
type Options struct {
	// Cache holds decoded blocks of every tile; shared by all packs. nil
	// gives each tile a private cache (tests only).
	Cache *raster.Cache
	// Client reads the remote COGs of pass-through packs; nil means
	// http.DefaultClient.
	Client *http.Client
	// Files lends the descriptors of the local tiles; nil means
	// raster.DefaultFilePool, bounded by RLIMIT_NOFILE for the process.
	Files *raster.FilePool
}

// OpenPack opens the terrain or vegetation pack in dir described by m; it
// is the catalog opener of pack.Terrain and pack.Vegetation. It reads the
// tile index only; tiles are opened on first use. Errors wrap ErrIndex or
// pack.ErrCorrupt.
func OpenPack(_ context.Context, dir string, m pack.Manifest, o Options) (*Dataset, error) {
	name := ""
	switch {
	case m.Product == pack.Terrain && m.Terrain != nil:
		name = m.Terrain.Index
	case m.Product == pack.Vegetation && m.Vegetation != nil:
		name = m.Vegetation.Index
	}
	if name == "" || !m.Has(name) {
		return nil, fmt.Errorf("%w: manifest of %s lists no tile index", pack.ErrCorrupt, m.Key())
	}
	ix, err := ReadIndex(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Key(), err)
	}
	if want := "EPSG:" + fmt.Sprint(ix.EPSG); m.CRS != "" && !strings.EqualFold(m.CRS, want) {
		return nil, fmt.Errorf("%w: %s: manifest CRS %s but index %s", ErrIndex, m.Key(), m.CRS, want)
	}
	z, _ := geo.ZoneForEPSG(ix.EPSG) // checked by ReadIndex
	d := &Dataset{Manifest: m, Zone: z, layers: map[string]*Layer{}}
	prefix := m.BL + "/" + m.Snapshot + "/"
	first := true
	for name, ts := range ix.Layers {
		for _, t := range ts {
			if t.Path != "" && !m.Has(t.Path) {
				return nil, fmt.Errorf("%w: %s: tile %s is not in the manifest", pack.ErrCorrupt, m.Key(), t.Path)
			}
			bb := envelopeWGS84(z, t.BBox)
			if first {
				d.bboxWGS84, first = bb, false
			}
			d.bboxWGS84 = union(d.bboxWGS84, bb)
		}
		d.layers[name] = newLayer(prefix, dir, ts, o)
	}
	want := LayerDGM
	if m.Product == pack.Vegetation {
		want = LayerCDSM
	}
	if d.layers[want] == nil || len(d.layers[want].tiles) == 0 {
		return nil, fmt.Errorf("%w: %s: index has no %s tiles", ErrIndex, m.Key(), want)
	}
	return d, nil
}

// Layer returns the named layer (LayerDGM, LayerCDSM, LayerTDSM), or nil.
func (d *Dataset) Layer(name string) *Layer { return d.layers[name] }

// BL returns the dataset's BL code.
func (d *Dataset) BL() string { return d.Manifest.BL }

// Close closes every opened tile; it implements io.Closer for the catalog.
func (d *Dataset) Close() error {
	for _, l := range d.layers {
		l.close()
	}
	return nil
}

// Probe reads one block of the first tile of the main layer (the admin
// health check).
func (d *Dataset) Probe(ctx context.Context) error {
	name := LayerDGM
	if d.Manifest.Product == pack.Vegetation {
		name = LayerCDSM
	}
	return d.layers[name].probe(ctx)
}

// mayCover reports whether lon, lat lies near the dataset's extent.
func (d *Dataset) mayCover(lon, lat float64) bool { return d.bboxWGS84.Contains(lon, lat) }

// envelopeWGS84 returns the lon/lat envelope of a UTM box, sampled along
// its edges and widened by 0.001 degrees (about 70 m) against curvature.
func envelopeWGS84(z geo.Zone, b [4]float64) geo.BBox {
	out := geo.BBox{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	const steps = 8
	for i := 0; i <= steps; i++ {
		f := float64(i) / steps
		for _, p := range [4][2]float64{
			{b[0] + f*(b[2]-b[0]), b[1]}, {b[0] + f*(b[2]-b[0]), b[3]},
			{b[0], b[1] + f*(b[3]-b[1])}, {b[2], b[1] + f*(b[3]-b[1])},
		} {
			lon, lat := geo.FromUTM(z, p[0], p[1])
			out.MinLon, out.MaxLon = math.Min(out.MinLon, lon), math.Max(out.MaxLon, lon)
			out.MinLat, out.MaxLat = math.Min(out.MinLat, lat), math.Max(out.MaxLat, lat)
		}
	}
	const pad = 0.001
	out.MinLon, out.MinLat, out.MaxLon, out.MaxLat = out.MinLon-pad, out.MinLat-pad, out.MaxLon+pad, out.MaxLat+pad
	return out
}

func union(a, b geo.BBox) geo.BBox {
	return geo.BBox{MinLon: math.Min(a.MinLon, b.MinLon), MinLat: math.Min(a.MinLat, b.MinLat),
		MaxLon: math.Max(a.MaxLon, b.MaxLon), MaxLat: math.Max(a.MaxLat, b.MaxLat)}
}

// EnvelopeWGS84 returns the lon/lat envelope (minLon, minLat, maxLon,
// maxLat) of tiles in zone z, for the manifest's bbox_wgs84; nil for no
// tiles.
func EnvelopeWGS84(z geo.Zone, tiles []Tile) []float64 {
	if len(tiles) == 0 {
		return nil
	}
	bb := envelopeWGS84(z, tiles[0].BBox)
	for _, t := range tiles[1:] {
		bb = union(bb, envelopeWGS84(z, t.BBox))
	}
	return []float64{bb.MinLon, bb.MinLat, bb.MaxLon, bb.MaxLat}
}

var _ io.Closer = (*Dataset)(nil)
