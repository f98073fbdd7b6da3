package tiles3d

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// attrSnapshot publishes a LoD2 pack of 20 boxes in one source file, each
// with function code fn and measures; the file's checksum covers fn, as an
// import's would (the file changed).
func attrSnapshot(t *testing.T, data, snapshot, fn string) {
	t.Helper()
	ctx := context.Background()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: snapshot})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	m := lw.Mark()
	content := sha256.New()
	for i := range 20 {
		x, y := e0+float64(i%5)*20, n0+float64(i/5)*20
		st := int64(2)
		b := lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i), Valid: true, Surfaces: fixture.Box(x, y, 8, 6, 100, 10),
			Attrs:    []lod2store.AttrsInput{{GMLID: fmt.Sprintf("DEHE%08d", i), Functions: []lod2store.Code{{Value: fn}}, Storeys: &st}},
			Measures: &lod2store.MeasuresInput{FootprintAreaM2: 48, GroundZ: 100, EavesZ: 110, RidgeZ: 110}}
		if err := lw.Add(ctx, b); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(content, "%s %v %s\n", b.GMLID, b.Surfaces, fn)
	}
	if err := lw.AddSource(ctx, m, "LoD2_32_0_0.gml", 20, hex.EncodeToString(content.Sum(nil)), "{}"); err != nil {
		t.Fatal(err)
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}}); err != nil {
		t.Fatal(err)
	}
}

// TestBuildTilesetAttributeChange: a new snapshot in which only the
// buildings' function changed (same geometry) rebuilds the leaf, whose glb
// then holds the new code, and the incremental pack equals a fresh build.
// (Before the attributes were inputs, the leaf was linked from the previous
// build with the old code.)
func TestBuildTilesetAttributeChange(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	attrSnapshot(t, data, "2026-07-20", "31001_1000")
	if _, err := Build(ctx, Options{DataDir: data, BL: "he"}); err != nil {
		t.Fatal(err)
	}
	attrSnapshot(t, data, "2026-08-01", "31001_2000")
	attrSnapshot(t, fresh, "2026-08-01", "31001_2000")
	var st BuildStats
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st.Built.Load() != 1 || st.Reused.Load() != 0 {
		t.Errorf("function changed: %d leaves built, %d reused; want the one leaf built", st.Built.Load(), st.Reused.Load())
	}
	if _, err := Build(ctx, Options{DataDir: fresh, BL: "he"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("buildings", "he", "2026-08-01")
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	leaves, _ := filepath.Glob(filepath.Join(data, dir, "tiles", "*.glb"))
	if len(leaves) != 1 {
		t.Fatalf("%d leaves", len(leaves))
	}
	glbData, err := os.ReadFile(leaves[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(glbData, []byte("31001_2000")) || bytes.Contains(glbData, []byte("31001_1000")) {
		t.Error("the leaf glb does not hold the new function code only")
	}
}
