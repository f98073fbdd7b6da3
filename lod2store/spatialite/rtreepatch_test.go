package spatialite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// TestPatchSpatialIndex packs the R*Tree of 5,000 surfaces and patches it
// 10 times in a row, each time removing 250 rows (5 %, in 5 runs of ids
// scattered over the area) and adding 250: in place (the new rows where
// the removed ones were, moved by up to a metre: a file updated) or
// scattered anywhere (the worst case for the tree). After each patch
// SQLite's rtreecheck finds the tree consistent and every window query
// answers what a scan of the live boxes does; after the 10th a window
// query visits at most 1.15 (in place) or 1.6 (scattered) times the nodes
// of a tree packed afresh from the same rows. A change of half the rows
// is left to packing again.
func TestPatchSpatialIndex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		scattered bool
		maxRatio  float64
	}{{"in place", false, 1.15}, {"scattered", true, 1.6}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			patchTenTimes(t, tc.scattered, tc.maxRatio)
		})
	}
}

func patchTenTimes(t *testing.T, scattered bool, maxRatio float64) {
	ctx := context.Background()
	surfaces := makeSurfaces(5000, 350000, 5600000, 7)
	path := buildPack(t, surfaces, 25832, false)
	db := openDB(t, path)
	live := map[int64]Rect{}
	for _, s := range surfaces {
		b, err := Encode(s.geom, 25832)
		if err != nil {
			t.Fatal(err)
		}
		if live[s.id], err = Envelope(b); err != nil {
			t.Fatal(err)
		}
	}
	pack := func(db DB, ids map[int64]Rect) {
		t.Helper()
		es := rowOrder(ids)
		entries := func(yield func(int64, Rect) bool) {
			for _, e := range es {
				if !yield(e.ID, e.Rect) {
					return
				}
			}
		}
		if err := CreateSpatialIndexPacked(ctx, db, "surfaces", "geom", len(es), entries); err != nil {
			t.Fatal(err)
		}
	}
	pack(db, live)
	repacked := 0
	for round := range 10 {
		var remove []RowidRange
		added := map[int64]Rect{}
		moved := makeSurfaces(250, 350000, 5600000, uint64(100+round))
		for k := int64(0); k < 250; k += 50 { // 5 runs of 50 ids
			first := int64(round*250) + k + 1
			remove = append(remove, RowidRange{first, first + 49})
			for id := first; id <= first+49; id++ {
				nid := id + 10000
				if scattered {
					b, _ := Encode(moved[id-first+k].geom, 25832)
					added[nid], _ = Envelope(b)
				} else {
					r, d := live[id], float64(id%7)/7
					added[nid] = Rect{r.MinX + d, r.MinY + d, r.MaxX + d, r.MaxY + d}
				}
				delete(live, id)
				live[nid] = added[nid]
			}
		}
		err := PatchSpatialIndex(ctx, db, "surfaces", "geom", remove, rowOrder(added), int64(len(live)), Rect{350000, 5600000, 352000, 5602000})
		if errors.Is(err, ErrRepack) {
			pack(db, live)
			repacked++
		} else if err != nil {
			t.Fatalf("patch %d: %v", round+1, err)
		}
		var res string
		if err := db.QueryRow(`SELECT rtreecheck('idx_surfaces_geom')`).Scan(&res); err != nil || res != "ok" {
			t.Fatalf("patch %d: rtreecheck: %q %v", round+1, res, err)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM idx_surfaces_geom`); n != int64(len(live)) {
			t.Fatalf("patch %d: index holds %d rows, want %d", round+1, n, len(live))
		}
		for _, q := range queryRects(350000, 5600000) {
			if got, want := idsInWindow(t, db, q), liveInWindow(live, q); !slices.Equal(got, want) {
				t.Fatalf("patch %d: window %v: %d ids, want %d", round+1, q, len(got), len(want))
			}
		}
	}
	patched := nodesVisited(t, db, queryRects(350000, 5600000))
	fresh := openDB(t, buildPack(t, surfaces[:1], 25832, false))
	pack(fresh, live)
	packed := nodesVisited(t, fresh, queryRects(350000, 5600000))
	t.Logf("nodes visited by %d window queries: %d patched 10 times (packed again %d times), %d packed afresh", len(queryRects(0, 0)), patched, repacked, packed)
	if float64(patched) > maxRatio*float64(packed) {
		t.Errorf("the tree patched 10 times visits %d nodes for the windows, packed afresh %d", patched, packed)
	}
	var half []RowidRange
	for id := range live {
		if len(half) < len(live)/2 {
			half = append(half, RowidRange{id, id})
		}
	}
	if err := PatchSpatialIndex(ctx, db, "surfaces", "geom", half, nil, int64(len(live)-len(half)), Rect{}); !errors.Is(err, ErrRepack) {
		t.Errorf("patch of half the rows: %v, want ErrRepack", err)
	}
}

// rowOrder is ids in rows of 100 m, west to east in each (a spatially
// coherent order, as the Hilbert curve gives).
func rowOrder(ids map[int64]Rect) []Entry {
	out := make([]Entry, 0, len(ids))
	for id, r := range ids {
		out = append(out, Entry{id, r})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if ya, yb := int(a.Rect.MinY/100), int(b.Rect.MinY/100); ya != yb {
			return ya - yb
		}
		if c := cmpFloat(a.Rect.MinX, b.Rect.MinX); c != 0 {
			return c
		}
		return cmpInt(a.ID, b.ID)
	})
	return out
}

func liveInWindow(live map[int64]Rect, q Rect) []int64 {
	var ids []int64
	for id, r := range live {
		if rtreeRect(r).Intersects(q) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// nodesVisited counts the nodes a depth-first R*Tree search of each
// window reads, from the shadow tables: what a query costs, whatever the
// machine's load.
func nodesVisited(t testing.TB, db *sql.DB, qs []Rect) int {
	t.Helper()
	nodes := map[int64][]byte{}
	rows, err := db.Query(`SELECT nodeno, data FROM idx_surfaces_geom_node`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var no int64
		var b []byte
		if err := rows.Scan(&no, &b); err != nil {
			t.Fatal(err)
		}
		nodes[no] = b
	}
	rows.Close()
	depth := int(binary.BigEndian.Uint16(nodes[1]))
	n := 0
	var visit func(no int64, height int, q Rect)
	visit = func(no int64, height int, q Rect) {
		n++
		b := nodes[no]
		for i := range int(binary.BigEndian.Uint16(b[2:])) {
			c := b[4+i*rtreeCell:]
			f := func(j int) float64 { return float64(math.Float32frombits(binary.BigEndian.Uint32(c[8+4*j:]))) }
			if height > 0 && (Rect{MinX: f(0), MaxX: f(1), MinY: f(2), MaxY: f(3)}).Intersects(q) {
				visit(int64(binary.BigEndian.Uint64(c)), height-1, q)
			}
		}
	}
	for _, q := range qs {
		visit(1, depth, q)
	}
	return n
}
