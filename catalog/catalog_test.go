package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/lod2store"
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

// commitLoD2 commits a LoD2 pack of one box building.
func commitLoD2(t *testing.T, data string, key pack.Key) {
	t.Helper()
	ctx := context.Background()
	w, err := pack.Create(data, key)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: "DEHE00000001", Valid: true, Surfaces: fixture.Box(477000, 5553000, 10, 8, 100, 10)}); err != nil {
		t.Fatal(err)
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": key.BL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}}); err != nil {
		t.Fatal(err)
	}
}

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
	ctx := context.Background()
	data := t.TempDir()
	commitLoD2(t, data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-01-01"})
	var opened []*lod2store.LoD2
	c := New(Options{Dir: data, LoD2: func(ctx context.Context, dir string, m pack.Manifest) (*lod2store.LoD2, error) {
		st, err := lod2store.OpenPack(ctx, dir, m)
		if err == nil {
			opened = append(opened, st)
		}
		return st, err
	}})
	// A closed store no longer answers its probe.
	closed := func(st *lod2store.LoD2) bool { return st.Probe(ctx) != nil }
	if _, err := c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	// An unchanged pack keeps its handle across reloads.
	v, err := c.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || closed(opened[0]) {
		t.Fatalf("opened %d, first closed %v after unchanged reload", len(opened), closed(opened[0]))
	}
	if ps := v.LoD2(); len(ps) != 1 || ps[0].LoD2 != opened[0] || ps[0].Probe(ctx) != nil {
		t.Fatalf("the view hands out %v, want the opened store", ps)
	}
	inflight, release := c.Acquire()
	commitLoD2(t, data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-02-01"})
	if v, err = c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if p, _ := v.Pack(pack.LoD2, "he"); p.Manifest.Snapshot != "2026-02-01" || p.LoD2 != opened[1] {
		t.Fatalf("new view has %s", p.Manifest.Snapshot)
	}
	if p, _ := inflight.Pack(pack.LoD2, "he"); p.Manifest.Snapshot != "2026-01-01" || closed(opened[0]) {
		t.Fatalf("in-flight view changed or closed: %s, closed %v", p.Manifest.Snapshot, closed(opened[0]))
	}
	release()
	if !closed(opened[0]) || closed(opened[1]) {
		t.Errorf("after release: old closed %v, new closed %v; want true, false", closed(opened[0]), closed(opened[1]))
	}
	c.Close()
	if !closed(opened[1]) {
		t.Errorf("the current store is open after Close")
	}
}

func keys(ps []*Pack) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Manifest.Key().String())
	}
	return out
}
