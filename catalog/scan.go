package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/pack"
)

// abandonedAfter is how long an import's temporary directory may sit
// untouched before a scan reports it: no import writes nothing for a day.
const abandonedAfter = 24 * time.Hour

// Reload scans the data directory and makes the result the current view.
// Packs whose manifest did not change since the last scan keep their open
// handle. It returns the new view; its Problems list every skipped pack.
func (c *Catalog) Reload(ctx context.Context) (*View, error) {
	c.reload.Lock()
	defer c.reload.Unlock()
	old := c.cur.Load()
	if _, err := os.Stat(c.opts.Dir); err != nil {
		return nil, fmt.Errorf("catalog: data directory: %w", err)
	}
	v := &View{packs: map[pack.Product][]*Pack{}, ScannedAt: time.Now().UTC()}
	v.users.Store(1)
	for _, prod := range pack.Products() {
		if err := ctx.Err(); err != nil {
			v.release()
			return nil, err
		}
		c.scanProduct(ctx, old, v, prod)
	}
	c.cur.Store(v)
	old.release()
	return v, nil
}

func (c *Catalog) scanProduct(ctx context.Context, old, v *View, prod pack.Product) {
	prodDir := filepath.Join(c.opts.Dir, string(prod))
	entries, err := os.ReadDir(prodDir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		v.Problems = problemList(v.Problems).add(string(prod), "unreadable: %v", err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		rel := string(prod) + "/" + name
		if !e.IsDir() || bl.Canonical(name) != name {
			v.Problems = problemList(v.Problems).add(rel, "not a BL directory (want one of the 16 lowercase BL codes)")
			continue
		}
		if p := c.scanBL(ctx, old, v, prod, name); p != nil {
			v.packs[prod] = append(v.packs[prod], p)
		}
	}
	sort.Slice(v.packs[prod], func(i, j int) bool {
		return v.packs[prod][i].Manifest.BL < v.packs[prod][j].Manifest.BL
	})
}

// scanBL returns the newest snapshot of one product and BL that reads and
// opens cleanly; newer broken ones are reported and skipped.
func (c *Catalog) scanBL(ctx context.Context, old, v *View, prod pack.Product, blCode string) *Pack {
	blDir := filepath.Join(c.opts.Dir, string(prod), blCode)
	entries, err := os.ReadDir(blDir)
	if err != nil {
		v.Problems = problemList(v.Problems).add(string(prod)+"/"+blCode, "unreadable: %v", err)
		return nil
	}
	var snaps []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") { // imports in progress, or left by a crash
			if info, err := e.Info(); err == nil && e.IsDir() && time.Since(info.ModTime()) > abandonedAfter {
				v.Problems = problemList(v.Problems).add(string(prod)+"/"+blCode+"/"+name,
					"abandoned import directory (untouched for %s); never published, safe to delete", time.Since(info.ModTime()).Round(time.Hour))
			}
			continue
		}
		if !e.IsDir() || !pack.ValidSnapshot(name) {
			v.Problems = problemList(v.Problems).add(string(prod)+"/"+blCode+"/"+name, "not a snapshot directory (want YYYY-MM-DD)")
			continue
		}
		snaps = append(snaps, name)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(snaps)))
	for _, snap := range snaps {
		rel := string(prod) + "/" + blCode + "/" + snap
		p, err := c.load(ctx, old, filepath.Join(blDir, snap))
		if err != nil {
			v.Problems = problemList(v.Problems).add(rel, "%v", err)
			continue
		}
		return p
	}
	return nil
}

// load returns the pack in dir, reusing the old view's open pack when its
// manifest is unchanged.
func (c *Catalog) load(ctx context.Context, old *View, dir string) (*Pack, error) {
	st, err := os.Stat(filepath.Join(dir, pack.ManifestName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: no %s", pack.ErrIncomplete, pack.ManifestName)
		}
		return nil, err
	}
	stamp := fmt.Sprintf("%d-%d", st.Size(), st.ModTime().UnixNano())
	prod := pack.Product(filepath.Base(filepath.Dir(filepath.Dir(dir))))
	for _, p := range old.packs[prod] {
		if p.Dir == dir && p.stamp == stamp && p.refs.Load() > 0 {
			p.refs.Add(1)
			return p, nil
		}
	}
	m, err := pack.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	p := &Pack{Manifest: m, Dir: dir, id: m.Key().String(), stamp: stamp}
	switch {
	case m.Product == pack.LoD2 && c.opts.LoD2 != nil:
		p.LoD2, err = c.opts.LoD2(ctx, dir, m)
	case (m.Product == pack.Terrain || m.Product == pack.Vegetation) && c.opts.Raster != nil:
		p.Raster, err = c.opts.Raster(ctx, dir, m)
	case m.Product == pack.Solar && c.opts.Solar != nil:
		p.Solar, err = c.opts.Solar(ctx, dir, m)
	}
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	p.refs.Store(1)
	return p, nil
}
