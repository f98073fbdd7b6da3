package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
)

// TestRasterImportResume cancels a DGM import of 12 tiles after 4 and
// resumes it: nothing was published meanwhile, the resumed run converts
// only the tiles the first lacked, and the pack is the same bytes as an
// uninterrupted import's. Without --resume the next run starts afresh.
func TestRasterImportResume(t *testing.T) {
	src := t.TempDir()
	paths := rasterTiles(t, src, "dgm1", 4, 3, 0, dgmHeight)
	data, fresh := t.TempDir(), t.TempDir()
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	ctx, cancel := context.WithCancel(context.Background())
	c.Progress = func(p Progress) {
		if p.Tiles >= 4 {
			cancel()
		}
	}
	c.Workers = 1
	_, err := DGM(ctx, c, DGMOptions{}, paths)
	if !errors.Is(err, context.Canceled) || !Resumable(err) {
		t.Fatalf("cancelled import: %v", err)
	}
	base := filepath.Join(data, string(pack.Terrain), "he")
	if _, err := os.Stat(filepath.Join(base, "2026-07-20")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the interrupted import was published: %v", err)
	}
	c.Progress, c.Workers, c.Resume = nil, 3, true
	var sum RasterSummary
	if _, err := DGM(context.Background(), c, DGMOptions{Summary: &sum}, paths); err != nil {
		t.Fatal(err)
	}
	if sum.Resumed < 4 || sum.Resumed+sum.Converted != 12 || sum.Reused != 0 {
		t.Errorf("resumed import: %+v; want 4 or more resumed, the rest converted", sum)
	}
	if _, err := os.Stat(filepath.Join(base, pack.ResumePrefix+"2026-07-20")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the work directory outlived the import: %v", err)
	}
	fc := c
	fc.DataDir = fresh
	if _, err := DGM(context.Background(), fc, DGMOptions{}, paths); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(string(pack.Terrain), "he", "2026-07-20")
	testtool.SameTrees(t, "resumed vs uninterrupted", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))

	// Interrupted again, then run without --resume: everything is redone.
	ctx, cancel = context.WithCancel(context.Background())
	c.Snapshot = "2026-07-21"
	c.Progress = func(p Progress) {
		if p.Tiles >= 2 {
			cancel()
		}
	}
	c.Workers, c.Resume = 1, false
	if _, err := DGM(ctx, c, DGMOptions{}, paths); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	c.Progress, sum = nil, RasterSummary{}
	if _, err := DGM(context.Background(), c, DGMOptions{Summary: &sum}, paths); err != nil {
		t.Fatal(err)
	}
	if sum.Resumed != 0 {
		t.Errorf("an import without --resume took up the journal: %+v", sum)
	}
}

// TestRasterImportIncremental imports a new snapshot in which one of 12
// DGM tiles changed: 11 tiles are linked from the previous snapshot, one
// is converted, and the pack is the same bytes as a fresh import's.
func TestRasterImportIncremental(t *testing.T) {
	srcA, srcB := t.TempDir(), t.TempDir()
	rasterTiles(t, srcA, "dgm1", 4, 3, 0, dgmHeight)
	rasterTiles(t, srcB, "dgm1", 4, 3, 0, dgmHeight)
	rasterTiles(t, srcB, "dgm1", 1, 1, 1, dgmHeight) // tile 477_5550 re-surveyed
	data, fresh := t.TempDir(), t.TempDir()
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := DGM(context.Background(), c, DGMOptions{}, []string{srcA}); err != nil {
		t.Fatal(err)
	}
	c.Snapshot = "2027-07-20"
	var sum RasterSummary
	if _, err := DGM(context.Background(), c, DGMOptions{Summary: &sum}, []string{srcB}); err != nil {
		t.Fatal(err)
	}
	if sum.Converted != 1 || sum.Reused != 11 {
		t.Errorf("one of 12 tiles changed: %+v; want 1 converted, 11 reused", sum)
	}
	fc := c
	fc.DataDir = fresh
	if _, err := DGM(context.Background(), fc, DGMOptions{}, []string{srcB}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(string(pack.Terrain), "he", "2027-07-20")
	testtool.SameTrees(t, "incremental vs fresh import", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	m, err := pack.ReadManifest(filepath.Join(data, dir))
	if err != nil {
		t.Fatal(err)
	}
	if damage, err := pack.Verify(context.Background(), filepath.Join(data, dir), m); err != nil || len(damage) != 0 {
		t.Errorf("the incremental pack does not verify: %v %v", damage, err)
	}
	// The tiles linked from the previous pack are not read again, neither
	// to check them against the journal nor by the commit: their SHA-256
	// comes from that pack's manifest (marked here, so that a hash read
	// from the file shows). All 12 tiles of the next snapshot are links.
	testtool.MarkSums(t, filepath.Join(data, dir), SourcesFile)
	c.Snapshot = "2028-07-20"
	sum = RasterSummary{}
	if _, err := DGM(context.Background(), c, DGMOptions{Summary: &sum}, []string{srcB}); err != nil {
		t.Fatal(err)
	}
	marked, files := testtool.MarkedFiles(t, filepath.Join(data, string(pack.Terrain), "he", c.Snapshot))
	if sum.Reused != 12 || len(marked) != 12 {
		t.Errorf("nothing changed: %d of 12 tiles reused, %d of %d files' SHA-256 taken from the previous manifest; want 12 and 12 (the tiles)",
			sum.Reused, len(marked), files)
	}
}

// TestRasterImportSkipsBadSource imports good tiles and a damaged one: the
// damaged one is left out and named with its reason; with Strict the
// import fails naming it and publishes nothing.
func TestRasterImportSkipsBadSource(t *testing.T) {
	src := t.TempDir()
	rasterTiles(t, src, "dgm1", 2, 2, 0, dgmHeight)
	b, err := os.ReadFile(filepath.Join(src, "dgm1_477_5550.tif"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "dgm1_479_5550.tif"), b[:len(b)/3]) // cut short
	data := t.TempDir()
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	c.Strict = true
	if _, err := DGM(context.Background(), c, DGMOptions{}, []string{src}); err == nil ||
		!strings.Contains(err.Error(), "dgm1_479_5550.tif") {
		t.Errorf("strict import: %v; want an error naming the damaged file", err)
	}
	if _, err := os.Stat(filepath.Join(data, string(pack.Terrain), "he", "2026-07-20")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the strict import published: %v", err)
	}
	var sum RasterSummary
	c.Strict = false
	m, err := DGM(context.Background(), c, DGMOptions{Summary: &sum}, []string{src})
	if err != nil {
		t.Fatal(err)
	}
	if m.Terrain.TileCount != 4 || len(sum.BadFiles) != 1 || !strings.HasSuffix(sum.BadFiles[0].Name, "dgm1_479_5550.tif") || sum.BadFiles[0].Reason == "" {
		t.Errorf("%d tiles, skipped %+v; want 4 tiles and the damaged file skipped with a reason", m.Terrain.TileCount, sum.BadFiles)
	}
}

// BenchmarkImportDGMIncremental imports a snapshot of 20 DGM1 tiles (1 km,
// 1 m pixels, as the states deliver them; every third one XYZ) of which
// one changed since the previous snapshot (5 %): "full" without the
// previous pack, "incremental" with it. Compare cpu-ms/op.
func BenchmarkImportDGMIncremental(b *testing.B) {
	srcA, srcB := b.TempDir(), b.TempDir()
	one := []float64{1}
	rasterTilesOf(b, srcA, "dgm1", 5, 4, 0, dgmHeight, one)
	rasterTilesOf(b, srcB, "dgm1", 5, 4, 0, dgmHeight, one)
	rasterTilesOf(b, srcB, "dgm1", 1, 1, 1, dgmHeight, one)
	for _, inc := range []bool{false, true} {
		name := map[bool]string{false: "full", true: "incremental"}[inc]
		b.Run(name, func(b *testing.B) {
			data := b.TempDir()
			c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
			if inc {
				if _, err := DGM(context.Background(), c, DGMOptions{}, []string{srcA}); err != nil {
					b.Fatal(err)
				}
			}
			c.Snapshot = "2027-07-20"
			next := filepath.Join(data, string(pack.Terrain), "he", c.Snapshot)
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				if err := os.RemoveAll(next); err != nil {
					b.Fatal(err)
				}
				var sum RasterSummary
				if _, err := DGM(context.Background(), c, DGMOptions{Summary: &sum}, []string{srcB}); err != nil {
					b.Fatal(err)
				}
				if inc && sum.Reused != 19 {
					b.Fatalf("%+v", sum)
				}
			}
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestRasterImportReplacedLinkRead: a tile the interrupted import linked
// from the previous pack, then replaced in the work directory by another
// file of the same size (another inode), is not taken for the previous
// pack's file: the resumed import reads it, finds it differs from its
// journal and fails naming it, publishing nothing.
func TestRasterImportReplacedLinkRead(t *testing.T) {
	src := t.TempDir()
	paths := rasterTiles(t, src, "dgm1", 4, 3, 0, dgmHeight)
	data := t.TempDir()
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := DGM(context.Background(), c, DGMOptions{}, paths); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.Snapshot, c.Workers = "2027-07-20", 1
	c.Progress = func(p Progress) {
		if p.Tiles >= 4 {
			cancel()
		}
	}
	if _, err := DGM(ctx, c, DGMOptions{}, paths); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	base := filepath.Join(data, string(pack.Terrain), "he")
	work := filepath.Join(base, pack.ResumePrefix+c.Snapshot, "tiles")
	ents, err := os.ReadDir(work)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no tiles in the work directory: %v", err)
	}
	name := ents[0].Name()
	prev, _ := os.Stat(filepath.Join(base, "2026-07-20", "tiles", name))
	cur, _ := os.Stat(filepath.Join(work, name))
	if prev == nil || cur == nil || !os.SameFile(prev, cur) {
		t.Skipf("%s is no hard link to the previous pack's file here", name)
	}
	b, err := os.ReadFile(filepath.Join(work, name))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff
	os.Remove(filepath.Join(work, name))
	writeFile(t, filepath.Join(work, name), b)
	c.Progress, c.Resume = nil, true
	if _, err := DGM(context.Background(), c, DGMOptions{}, paths); err == nil ||
		!strings.Contains(err.Error(), strings.TrimSuffix(name, ".tif")+" changed since it was written") {
		t.Errorf("resumed import over a replaced link: %v; want it to fail naming %s", err, name)
	}
	if _, err := os.Stat(filepath.Join(base, c.Snapshot)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the import published over a replaced tile: %v", err)
	}
}
