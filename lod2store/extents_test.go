package lod2store

import (
	"context"
	"errors"
	"testing"
)

// TestExtentsIn computes the footprint boxes of a town's buildings from
// ranges of surface ids, as a build does per source file, and merges them:
// the same float64 boxes as Extents, which scans the whole search file.
// Ranges outside the file's surfaces are refused.
func TestExtentsIn(t *testing.T) {
	ctx := context.Background()
	s, _ := writeTown(t, 25832, 470000, 5550000, 2000, 500, 11)
	want, err := s.Extents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, surfaces := s.Counts()
	for _, chunk := range []int64{1, 7, 250, surfaces} {
		got := map[int64]BuildingExtent{}
		for first := int64(1); first <= surfaces; first += chunk {
			ext, err := s.ExtentsIn(ctx, first, min(chunk, surfaces-first+1))
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range ext {
				if i > 0 && ext[i-1].BuildingID >= e.BuildingID {
					t.Fatalf("chunk %d: ids not ascending at %d", chunk, i)
				}
				if g, ok := got[e.BuildingID]; ok { // a building split over two ranges
					e.MinX, e.MinY, e.MaxX, e.MaxY = min(e.MinX, g.MinX), min(e.MinY, g.MinY), max(e.MaxX, g.MaxX), max(e.MaxY, g.MaxY)
				}
				got[e.BuildingID] = e
			}
		}
		if len(got) != len(want) {
			t.Fatalf("chunk %d: %d buildings, Extents %d", chunk, len(got), len(want))
		}
		for _, w := range want {
			if got[w.BuildingID] != w {
				t.Fatalf("chunk %d: building %d: %+v, Extents %+v", chunk, w.BuildingID, got[w.BuildingID], w)
			}
		}
	}
	for _, r := range [][2]int64{{0, 1}, {1, surfaces + 1}, {surfaces, 2}, {1, -1}} {
		if _, err := s.ExtentsIn(ctx, r[0], r[1]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ExtentsIn(%d, %d): %v, want ErrCorrupt", r[0], r[1], err)
		}
	}
}
