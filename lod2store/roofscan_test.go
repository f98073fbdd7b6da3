package lod2store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/lod2store"
)

// TestRoofsIn: the buildings of an id range come in id order with the
// facets Roof measures, in its order, each named by its surface and
// polygon; a building without roof surfaces comes with none.
func TestRoofsIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lod2.sqlite")
	w, err := lod2store.CreateLoD2(ctx, path, 25832)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		ss := fixture.Box(476000+float64(i)*30, 5550000, 10, 8, 120, 6+float64(i))
		if i == 2 {
			var walls []lod2store.SurfaceInput
			for _, s := range ss {
				if s.Class != lod2store.ClassRoof {
					walls = append(walls, s)
				}
			}
			ss = walls
		}
		if err := w.Add(ctx, lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHE%04d", i+1), Valid: true, Surfaces: ss}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Finish(ctx, map[string]string{"bl": "he"}); err != nil {
		t.Fatal(err)
	}
	s, err := lod2store.OpenLoD2(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.MaxBuildingID(ctx); err != nil || n != 5 {
		t.Fatalf("max building id %d, %v", n, err)
	}
	var got []*lod2store.RoofBuilding
	if err := s.RoofsIn(ctx, 2, 4, func(b *lod2store.RoofBuilding) error { got = append(got, b); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].BuildingID != 2 || got[2].BuildingID != 4 {
		t.Fatalf("buildings %+v", got)
	}
	for _, b := range got {
		want, err := s.Roof(ctx, b.GMLID)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 && len(b.Facets) == 0 {
			if b.GMLID != "DEHE0003" {
				t.Errorf("%s: no roof facets", b.GMLID)
			}
			continue
		}
		if !reflect.DeepEqual(b.Facets, want) || len(b.SurfaceIDs) != len(want) || len(b.Parts) != len(want) {
			t.Errorf("%s: facets %+v\nRoof %+v", b.GMLID, b.Facets, want)
		}
	}
}
