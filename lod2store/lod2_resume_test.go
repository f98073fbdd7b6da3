package lod2store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestResumeLoD2AfterUnrecordedCommit is the worst moment for a kill: the
// writer committed rows after the checkpoint its caller recorded. Resumed
// from that checkpoint, the rows past it are dropped, the spool cut back,
// and writing the rest again gives the rows and the search file of a
// writer that never stopped.
func TestResumeLoD2AfterUnrecordedCommit(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 3))
	var bs []BuildingInput
	for i := range 60 {
		x, y := 477000+rng.Float64()*800, 5553000+rng.Float64()*800
		bs = append(bs, BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i%50), PartIDs: []string{fmt.Sprintf("DEHE%08d_p", i)}, Valid: i%7 != 0,
			Surfaces: prism(x, y, 5+rng.Float64()*15, 5+rng.Float64()*15, 100, 10)}) // 10 repeated ids
	}
	write := func(w *LoD2Writer, from, to int) {
		t.Helper()
		for _, b := range bs[from:to] {
			if err := w.Add(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref := filepath.Join(t.TempDir(), "lod2.sqlite")
	w, err := CreateLoD2(ctx, ref, 25832)
	if err != nil {
		t.Fatal(err)
	}
	write(w, 0, len(bs))
	refStats, err := w.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "lod2.sqlite")
	w, err = CreateLoD2(ctx, path, 25832)
	if err != nil {
		t.Fatal(err)
	}
	write(w, 0, 20)
	st, err := w.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(w, 20, 45)
	if _, err := w.Checkpoint(ctx); err != nil { // committed, never recorded
		t.Fatal(err)
	}
	write(w, 45, 52) // in the open transaction when the process dies
	w.Close()

	w, err = ResumeLoD2(ctx, path, st)
	if err != nil {
		t.Fatal(err)
	}
	write(w, 20, len(bs))
	stats, err := w.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		t.Fatal(err)
	}
	if stats != refStats {
		t.Errorf("stats %+v, uninterrupted %+v", stats, refStats)
	}
	if a, b := dumpRows(t, path), dumpRows(t, ref); a != b {
		t.Errorf("rows differ from the uninterrupted writer's")
	}
	a, _ := os.ReadFile(path + SearchFileSuffix)
	b, _ := os.ReadFile(ref + SearchFileSuffix)
	if !bytes.Equal(a, b) {
		t.Errorf("search file differs from the uninterrupted writer's")
	}
}

func dumpRows(t *testing.T, path string) string {
	t.Helper()
	return testtool.SQLRows(t, path,
		`SELECT surface_id, building_id, gmlid, surface_class, hex(geom) FROM surfaces ORDER BY surface_id`,
		`SELECT building_id, gmlid, surface_count, valid FROM buildings ORDER BY building_id`,
		`SELECT gmlid, building_id FROM building_ids ORDER BY gmlid`,
		`SELECT nodeno, hex(data) FROM idx_surfaces_geom_node ORDER BY nodeno`)
}
