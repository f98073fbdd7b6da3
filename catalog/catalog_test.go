package catalog

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-geodata/svc/pack"
)

func commit(t *testing.T, data string, key pack.Key) {
	t.Helper()
	w, err := pack.Create(data, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), "data.bin"), []byte(key.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(context.Background(), pack.Manifest{LicenseID: "cc-by-4.0"}); err != nil {
		t.Fatal(err)
	}
}

type handle struct{ closed *atomic.Int32 }

func (h handle) Close() error { h.closed.Add(1); return nil }

func TestReloadPublishesNewestFinished(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	commit(t, data, pack.Key{Product: pack.Terrain, BL: "he", Snapshot: "2026-01-01"})
	commit(t, data, pack.Key{Product: pack.Terrain, BL: "he", Snapshot: "2026-02-01"})
	commit(t, data, pack.Key{Product: pack.Terrain, BL: "be", Snapshot: "2026-02-01"})
	// A newer snapshot whose copy was interrupted: files but no manifest.
	half := filepath.Join(data, "terrain", "he", "2026-03-01")
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, "data.bin"), []byte("partial"), 0o644)
	// An import in progress is invisible and not a problem.
	os.MkdirAll(filepath.Join(data, "terrain", "be", ".tmp-2026-05-01-abc"), 0o755)
	// Stray entries are reported, and so is an import a crash left behind.
	os.MkdirAll(filepath.Join(data, "terrain", "xx"), 0o755)
	old := filepath.Join(data, "terrain", "be", ".tmp-2026-04-01-dead")
	os.MkdirAll(old, 0o755)
	os.Chtimes(old, time.Now().Add(-48*time.Hour), time.Now().Add(-48*time.Hour))

	c := New(Options{Dir: data})
	v, err := c.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ps := v.Packs(pack.Terrain)
	if len(ps) != 2 || ps[0].Manifest.BL != "be" || ps[1].Manifest.BL != "he" {
		t.Fatalf("published = %v", keys(ps))
	}
	if got := ps[1].Manifest.Snapshot; got != "2026-02-01" {
		t.Errorf("he snapshot = %s, want the newest finished 2026-02-01", got)
	}
	if len(v.Problems) != 3 {
		t.Fatalf("problems = %+v", v.Problems)
	}
	var all string
	for _, p := range v.Problems {
		all += p.Path + ": " + p.Reason + "\n"
	}
	if !strings.Contains(all, "terrain/he/2026-03-01") {
		t.Errorf("half-written pack not reported: %s", all)
	}
	if !strings.Contains(all, ".tmp-2026-04-01-dead: abandoned import") || strings.Contains(all, ".tmp-2026-05-01") {
		t.Errorf("abandoned / running imports reported wrongly: %s", all)
	}
	if v.BLCount("") != 2 || v.BLCount(pack.LoD2) != 0 {
		t.Errorf("BLCount = %d, %d", v.BLCount(""), v.BLCount(pack.LoD2))
	}
}

func TestSwapIsAtomicForUsers(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	commit(t, data, pack.Key{Product: pack.LoD2, BL: "nrw", Snapshot: "2026-01-01"})
	var opened, closed atomic.Int32
	c := New(Options{Dir: data, Openers: map[pack.Product]Opener{
		pack.LoD2: func(ctx context.Context, dir string, m pack.Manifest) (io.Closer, error) {
			opened.Add(1)
			return handle{&closed}, nil
		},
	}})
	if _, err := c.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	// An unchanged pack keeps its handle across reloads.
	if _, err := c.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if opened.Load() != 1 || closed.Load() != 0 {
		t.Fatalf("opened %d closed %d after unchanged reload", opened.Load(), closed.Load())
	}
	inflight, release := c.Acquire()
	commit(t, data, pack.Key{Product: pack.LoD2, BL: "nrw", Snapshot: "2026-02-01"})
	v, err := c.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := v.Pack(pack.LoD2, "nrw"); p.Manifest.Snapshot != "2026-02-01" {
		t.Fatalf("new view has %s", p.Manifest.Snapshot)
	}
	if p, _ := inflight.Pack(pack.LoD2, "nrw"); p.Manifest.Snapshot != "2026-01-01" || closed.Load() != 0 {
		t.Fatalf("in-flight view changed or closed: %s, closed %d", p.Manifest.Snapshot, closed.Load())
	}
	release()
	if closed.Load() != 1 {
		t.Errorf("old handle closed %d times after release, want 1", closed.Load())
	}
	c.Close()
	if closed.Load() != 2 {
		t.Errorf("closed %d after Close, want 2", closed.Load())
	}
}

func keys(ps []*Pack) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Manifest.Key().String())
	}
	return out
}
