package tiles3d

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/solarstore"
)

// TestSolarShareOfCell: in a store of the built-in default climate (no
// single best plane, each facet its cell's) a leaf's share_of_best is the
// facet's annual over its own cell's best plane, and the leaf's inputs
// hash changes with that best; a facet of a file's store keeps the store's.
func TestSolarShareOfCell(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), solarstore.FileName)
	w, err := solarstore.Create(ctx, path, solarstore.Info{Climate: solarstore.Climate{Format: "cmsaf-monthly-means", Method: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	put := func(id, sid, annual, best int64) {
		t.Helper()
		err := w.Put(ctx, solarstore.Building{ID: id, GMLID: string(rune('a' + id)), Facets: []solarstore.Facet{{SurfaceID: sid, AnnualWhM2: annual, Unshaded: annual, BestWhM2: best}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	put(1, 10, 1_000_000, 1_250_000) // a cell in the north
	put(2, 20, 1_000_000, 1_400_000) // one in the south
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := solarstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &tileSolar{st: st, info: st.Info()}
	roof := func(sid int64) lod2store.Building3D {
		return lod2store.Building3D{Surfaces: []lod2store.Surface3D{{SurfaceID: sid, Class: lod2store.ClassRoof, Ends: [][]int{{3}}}}}
	}
	vals, hash, err := s.values(ctx, []lod2store.Building3D{roof(10), roof(20)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for sid, want := range map[int64]float32{10: 0.8, 20: 1 / 1.4} {
		if v := vals[facetKey{sid, 0}]; v == nil || v.ShareOfBest != want {
			t.Errorf("surface %d: %+v, want share %v of its cell's best plane", sid, v, want)
		}
	}
	if _, ok := s.assetSolar()["best_plane_annual_kwh_m2"]; ok {
		t.Error("asset.extras.solar names one best plane for a store of per-cell planes")
	}
	// Another best plane of the same facet is another input of the leaf.
	st2path := filepath.Join(t.TempDir(), solarstore.FileName)
	w, _ = solarstore.Create(ctx, st2path, solarstore.Info{})
	put(1, 10, 1_000_000, 1_300_000)
	put(2, 20, 1_000_000, 1_400_000)
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st2, err := solarstore.Open(ctx, st2path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	_, hash2, err := (&tileSolar{st: st2, info: st2.Info()}).values(ctx, []lod2store.Building3D{roof(10), roof(20)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(hash, hash2) {
		t.Error("the leaf's inputs do not change with a facet's best plane")
	}
}
