// Package catalog knows which packs are published. It scans the data
// directory, keeps the newest finished snapshot of every product and BL
// open, and swaps a whole new view in at once on reload, so a request that
// started on the old view finishes on it while new requests see the new one.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
	"github.com/svc-geodata/svc/terrain"
)

// Opener opens the resource of one published pack (a LoD2 store, a raster
// dataset) once per pack. What it returns is handed out typed (Pack.LoD2,
// Pack.Raster) and closed when no view uses the pack any more. A non-nil
// error skips the pack with that reason.
type Opener[H any] func(ctx context.Context, dir string, m pack.Manifest) (H, error)

// Options configure a Catalog. A nil opener publishes the packs of its
// products without a handle (the listings and static files need none).
type Options struct {
	Dir    string                    // the data directory
	LoD2   Opener[*lod2store.LoD2]   // opens pack.LoD2 packs
	Raster Opener[*terrain.Dataset]  // opens pack.Terrain and pack.Vegetation packs
	Solar  Opener[*solarstore.Store] // opens pack.Solar packs
}

// Catalog holds the current View. It is safe for concurrent use.
type Catalog struct {
	opts   Options
	reload sync.Mutex // one scan at a time
	cur    atomic.Pointer[View]
}

// New returns a catalog with an empty view; call Reload to scan.
func New(opts Options) *Catalog {
	if abs, err := filepath.Abs(opts.Dir); err == nil {
		opts.Dir = abs
	}
	c := &Catalog{opts: opts}
	v := &View{packs: map[pack.Product][]*Pack{}}
	v.users.Store(1)
	c.cur.Store(v)
	return c
}

// Pack is one published pack. At most one of its handles is set: the one
// its product's opener returned.
type Pack struct {
	Manifest pack.Manifest
	Dir      string            // absolute directory of the pack
	LoD2     *lod2store.LoD2   // the open store of a LoD2 pack, or nil
	Raster   *terrain.Dataset  // the open dataset of a terrain or vegetation pack, or nil
	Solar    *solarstore.Store // the open store of a solar pack, or nil
	id       string            // Manifest.Key() as text
	stamp    string            // manifest identity on disk, for reuse across reloads
	refs     atomic.Int64
}

// ID returns the pack's identity, <product>/<bl>/<snapshot>.
func (p *Pack) ID() string { return p.id }

// Probe checks that the pack's handle answers (the admin health check);
// nil for a pack without one.
func (p *Pack) Probe(ctx context.Context) error {
	switch {
	case p.LoD2 != nil:
		return p.LoD2.Probe(ctx)
	case p.Raster != nil:
		return p.Raster.Probe(ctx)
	case p.Solar != nil:
		return p.Solar.Probe(ctx)
	}
	return nil
}

// close closes the pack's handle.
func (p *Pack) close() error {
	var errs []error
	if p.LoD2 != nil {
		errs = append(errs, p.LoD2.Close())
	}
	if p.Raster != nil {
		errs = append(errs, p.Raster.Close())
	}
	if p.Solar != nil {
		errs = append(errs, p.Solar.Close())
	}
	return errors.Join(errs...)
}

// Problem is a pack directory that was skipped, with the reason.
type Problem struct {
	Path   string `json:"path"` // relative to the data directory
	Reason string `json:"reason"`
}

// View is an immutable set of published packs.
type View struct {
	packs     map[pack.Product][]*Pack // sorted by BL
	Problems  []Problem
	ScannedAt time.Time
	users     atomic.Int64 // the catalog's own reference plus one per Acquire
}

// Acquire returns the current view and a release function that must be
// called when the caller no longer uses it or its packs' handles.
func (c *Catalog) Acquire() (*View, func()) {
	for {
		v := c.cur.Load()
		n := v.users.Load()
		if n == 0 { // retired between Load and here: take the new one
			continue
		}
		if v.users.CompareAndSwap(n, n+1) {
			return v, func() { v.release() }
		}
	}
}

// Current returns the current view without holding it; for listings that
// copy what they need and touch no handle.
func (c *Catalog) Current() *View { return c.cur.Load() }

func (v *View) release() {
	if v.users.Add(-1) != 0 {
		return
	}
	for _, ps := range v.packs {
		for _, p := range ps {
			p.unref()
		}
	}
}

func (p *Pack) unref() {
	if p.refs.Add(-1) == 0 {
		_ = p.close()
	}
}

// Close retires the current view; handles close once in-flight users finish.
func (c *Catalog) Close() {
	c.reload.Lock()
	defer c.reload.Unlock()
	empty := &View{packs: map[pack.Product][]*Pack{}}
	empty.users.Store(1)
	c.cur.Swap(empty).release()
}

// Packs returns the published packs of a product, ordered by BL code.
func (v *View) Packs(p pack.Product) []*Pack { return v.packs[p] }

// LoD2 returns the published LoD2 packs that opened a store, ordered by BL
// code.
func (v *View) LoD2() []*Pack {
	ps := v.packs[pack.LoD2]
	out := make([]*Pack, 0, len(ps))
	for _, p := range ps {
		if p.LoD2 != nil {
			out = append(out, p)
		}
	}
	return out
}

// Rasters returns the opened raster datasets of a product (pack.Terrain or
// pack.Vegetation), ordered by BL code.
func (v *View) Rasters(p pack.Product) []*terrain.Dataset {
	ps := v.packs[p]
	out := make([]*terrain.Dataset, 0, len(ps))
	for _, pk := range ps {
		if pk.Raster != nil {
			out = append(out, pk.Raster)
		}
	}
	return out
}

// Solar returns the published solar store of a BL when it was computed
// for the roof facets of that BL's published LoD2 pack (same snapshot and
// lod2.sqlite); nil when there is none or it belongs to another snapshot.
// The caller checks the climate (Info().Climate.SHA256) against its own.
func (v *View) Solar(blCode string) *solarstore.Store {
	sp, ok := v.Pack(pack.Solar, blCode)
	if !ok || sp.Solar == nil {
		return nil
	}
	lp, ok := v.Pack(pack.LoD2, blCode)
	if !ok {
		return nil
	}
	info := sp.Solar.Info()
	if info.LoD2Snapshot != lp.Manifest.Snapshot || info.LoD2SHA256 != lp.Manifest.FileSHA256(lodFile(lp.Manifest)) {
		return nil
	}
	return sp.Solar
}

// lodFile is the SpatiaLite file of a LoD2 manifest.
func lodFile(m pack.Manifest) string {
	if m.LoD2 != nil {
		return m.LoD2.File
	}
	return ""
}

// Pack returns the published pack of a product for one BL.
func (v *View) Pack(p pack.Product, blCode string) (*Pack, bool) {
	ps := v.packs[p]
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Manifest.BL >= blCode })
	if i < len(ps) && ps[i].Manifest.BL == blCode {
		return ps[i], true
	}
	return nil, false
}

// BLCount returns how many distinct BL have a published pack of product p,
// or of any product when p is "".
func (v *View) BLCount(p pack.Product) int {
	seen := map[string]bool{}
	for prod, ps := range v.packs {
		if p != "" && prod != p {
			continue
		}
		for _, pk := range ps {
			seen[pk.Manifest.BL] = true
		}
	}
	return len(seen)
}

// Published reports whether the static path rel (product/bl/snapshot/...)
// lies inside a published pack, and returns that pack.
func (v *View) Published(product pack.Product, blCode, snapshot string) (*Pack, bool) {
	p, ok := v.Pack(product, blCode)
	if !ok || p.Manifest.Snapshot != snapshot {
		return nil, false
	}
	return p, true
}

func (k problemList) add(path string, format string, args ...any) problemList {
	return append(k, Problem{Path: path, Reason: fmt.Sprintf(format, args...)})
}

type problemList []Problem
