package catalog

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
)

// commitSolar commits a solar pack computed for the LoD2 pack lod.
func commitSolar(t *testing.T, data, snapshot string, lod pack.Manifest) {
	t.Helper()
	ctx := context.Background()
	w, err := pack.Create(data, pack.Key{Product: pack.Solar, BL: lod.BL, Snapshot: snapshot})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	info := solarstore.Info{LoD2Snapshot: lod.Snapshot, LoD2SHA256: lod.FileSHA256("lod2.sqlite")}
	sw, err := solarstore.Create(ctx, filepath.Join(w.Dir(), solarstore.FileName), info)
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Put(ctx, solarstore.Building{ID: 1, GMLID: "DEHE00000001"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0",
		Solar: &pack.SolarInfo{File: solarstore.FileName, LoD2Snapshot: info.LoD2Snapshot, LoD2SHA256: info.LoD2SHA256}}); err != nil {
		t.Fatal(err)
	}
}

// TestSolarFollowsLoD2: a solar store is handed out only while the LoD2
// pack whose surface ids it uses is the published one; a newer LoD2
// snapshot makes it stale (the route then computes on demand).
func TestSolarFollowsLoD2(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	commitLoD2(t, data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-01-01"})
	c := New(Options{Dir: data, LoD2: lod2store.OpenPack, Solar: solarstore.OpenPack})
	v, err := c.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lod, _ := v.Pack(pack.LoD2, "he")
	if lod.Manifest.FileSHA256("lod2.sqlite") == "" {
		t.Fatal("the LoD2 manifest records no SHA-256 of lod2.sqlite")
	}
	if v.Solar("he") != nil {
		t.Fatal("a store without a solar pack")
	}
	commitSolar(t, data, "2026-01-02", lod.Manifest)
	if v, err = c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	s := v.Solar("he")
	if s == nil {
		t.Fatalf("no store for the published LoD2 pack; problems %+v", v.Problems)
	}
	if _, err := s.Building(ctx, "DEHE00000001"); err != nil {
		t.Fatal(err)
	}
	if v.Solar("be") != nil {
		t.Fatal("a store for a BL without one")
	}
	commitLoD2(t, data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-03-01"})
	if v, err = c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Solar("he") != nil {
		t.Fatal("the store of the previous LoD2 snapshot is handed out for the new one")
	}
}
