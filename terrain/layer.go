package terrain

import (
	"strconv"
	"time"

	"context"
	"errors"
	"fmt"
	"golang.org/x/sync/singleflight"
	"math"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/svc-geodata/svc/raster"
)

// EdgeM is the inward shift (metres) of points closer than this to the edge
// of their tile (spec 4.5: edge pixels are sampled 0.6 m inward).
const EdgeM = 0.6

// Layer is one raster layer of a pack (the DGM, the CDSM or the TDSM): its
// tiles, a router from points to tiles, and the tiles opened so far. It is
// safe for concurrent use.
type Layer struct {
	prefix string // "<bl>/<snapshot>/", prepended to tile names for tile ids
	dir    string
	tiles  []Tile
	ids    []string // public tile ids, made once: every answer names its tile
	slots  []tileSlot
	route  router
	cache  *raster.Cache
	client *http.Client
	files  *raster.FilePool // lends the descriptors of local tiles
	// opening single-flights the opening of a tile: a slow remote open
	// holds no lock a waiting request cannot leave when its deadline comes.
	opening singleflight.Group
}

type tileSlot struct {
	cog atomic.Pointer[raster.COG]
	mu  sync.Mutex
	src raster.Source // to close with the layer
	// failed remembers the last failed open for failMemory, so the samples
	// of one profile do not each wait out the retries of a dead store.
	failed atomic.Pointer[failedOpen]
}

type failedOpen struct {
	at  time.Time
	err error
}

// failMemory is how long a failed open answers for the tile before the
// next request tries again.
const failMemory = 2 * time.Second

func newLayer(prefix, dir string, tiles []Tile, o Options) *Layer {
	ids := make([]string, len(tiles))
	for i, t := range tiles {
		ids[i] = prefix + t.Name
	}
	return &Layer{prefix: prefix, dir: dir, tiles: tiles, ids: ids, slots: make([]tileSlot, len(tiles)),
		route: newRouter(tiles), cache: o.Cache, client: o.Client, files: o.Files}
}

// Tiles returns the tiles of the layer, sorted by name. The slice must not
// be modified.
func (l *Layer) Tiles() []Tile { return l.tiles }

// TileID returns the public id of tile i: "<bl>/<snapshot>/<name>".
func (l *Layer) TileID(i int) string { return l.ids[i] }

// Sample returns the value at x, y (metres in the layer's CRS). Tiles
// containing the point are tried by name; in each, a point closer than EdgeM
// to the tile's edge moves EdgeM inward. The first valid pixel wins and its
// tile index is returned. ErrOutside: no tile covers the point; ErrNoData:
// every covering tile holds NoData there (tile is then the first covering
// tile). A read failure is a *TileError naming the tile.
func (l *Layer) Sample(ctx context.Context, x, y float64) (v float64, tile int, err error) {
	tile = -1
	for _, i := range l.route.lookup(x, y) {
		b := &l.tiles[i].BBox
		if x < b[0] || x > b[2] || y < b[1] || y > b[3] {
			continue
		}
		if tile < 0 {
			tile = int(i)
		}
		c, err := l.open(ctx, int(i))
		if err != nil {
			return 0, int(i), &TileError{TileID: l.TileID(int(i)), Err: err}
		}
		val, ok, err := c.Sample(ctx, inward(x, b[0], b[2]), inward(y, b[1], b[3]))
		if err != nil {
			return 0, int(i), &TileError{TileID: l.TileID(int(i)), Err: err}
		}
		if ok {
			return val, int(i), nil
		}
	}
	if tile < 0 {
		return 0, -1, ErrOutside
	}
	return 0, tile, ErrNoData
}

// inward moves v at least EdgeM away from lo and hi when the interval is
// wide enough.
func inward(v, lo, hi float64) float64 {
	if hi-lo <= 2*EdgeM {
		return (lo + hi) / 2
	}
	return math.Min(math.Max(v, lo+EdgeM), hi-EdgeM)
}

// open returns the opened COG of tile i, opening it on first use. A failed
// open is not remembered, so an unreachable remote tile is retried by the
// next request.
func (l *Layer) open(ctx context.Context, i int) (*raster.COG, error) {
	s := &l.slots[i]
	if c := s.cog.Load(); c != nil {
		return c, nil
	}
	if f := s.failed.Load(); f != nil && time.Since(f.at) < failMemory {
		return nil, f.err
	}
	ch := l.opening.DoChan(strconv.Itoa(i), func() (any, error) {
		// The open serves every waiter: it must outlive the first caller's
		// request, within its own bound.
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), openTimeout)
		defer cancel()
		c, err := l.openSlot(octx, i)
		if err != nil {
			s.failed.Store(&failedOpen{at: time.Now(), err: err})
		}
		return c, err
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*raster.COG), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// openTimeout bounds opening one tile (reading its header and index,
// through the HTTP client's own timeouts and retries for a remote tile).
const openTimeout = 30 * time.Second

// openSlot opens tile i once; callers go through open.
func (l *Layer) openSlot(ctx context.Context, i int) (*raster.COG, error) {
	s := &l.slots[i]
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.cog.Load(); c != nil {
		return c, nil
	}
	t := l.tiles[i]
	var src raster.Source
	var fs *raster.FileSource
	if t.URL != "" {
		src = raster.NewHTTPSource(l.client, t.URL)
	} else {
		files := l.files
		if files == nil {
			files = raster.DefaultFilePool()
		}
		f, err := files.Open(filepath.Join(l.dir, filepath.FromSlash(t.Path)))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", raster.ErrCorrupt, errors.Unwrap(err))
		}
		src, fs = f, f
	}
	c, err := raster.Open(ctx, src, l.cache)
	if err != nil {
		if fs != nil {
			fs.Close()
		}
		return nil, err
	}
	s.src = src
	s.cog.Store(c)
	return c, nil
}

// close closes every opened tile.
func (l *Layer) close() {
	for i := range l.slots {
		s := &l.slots[i]
		s.mu.Lock()
		if c := s.cog.Swap(nil); c != nil {
			_ = c.Close()
		}
		if f, ok := s.src.(*raster.FileSource); ok {
			_ = f.Close()
		}
		s.src = nil
		s.mu.Unlock()
	}
}

// probe opens the first tile and samples its centre, reading one block.
func (l *Layer) probe(ctx context.Context) error {
	if len(l.tiles) == 0 {
		return fmt.Errorf("%w: layer without tiles", ErrIndex)
	}
	c, err := l.open(ctx, 0)
	if err != nil {
		return &TileError{TileID: l.TileID(0), Err: err}
	}
	b := l.tiles[0].BBox
	if _, _, err := c.Sample(ctx, (b[0]+b[2])/2, (b[1]+b[3])/2); err != nil {
		return &TileError{TileID: l.TileID(0), Err: err}
	}
	return nil
}
