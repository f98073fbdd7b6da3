package spatialite

import (
	"context"
	"slices"
	"testing"
)

// TestCreateSpatialIndexPacked packs the R*Tree of 5,000 surfaces (three
// levels) directly: SQLite's own rtreecheck finds the tree consistent, a
// fresh connection answers window queries exactly as a brute-force scan,
// and the tree takes inserts and deletes through SQLite afterwards and
// stays consistent.
func TestCreateSpatialIndexPacked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	surfaces := makeSurfaces(5000, 350000, 5600000, 7)
	path := buildPack(t, surfaces, 25832, false)
	db := openDB(t, path)
	boxes := make(map[int64]Rect, len(surfaces))
	for _, s := range surfaces {
		b, err := Encode(s.geom, 25832)
		if err != nil {
			t.Fatal(err)
		}
		if boxes[s.id], err = Envelope(b); err != nil {
			t.Fatal(err)
		}
	}
	// A spatially coherent order: rows of 100 m, west to east in each.
	order := make([]int64, 0, len(surfaces))
	for _, s := range surfaces {
		order = append(order, s.id)
	}
	slices.SortFunc(order, func(a, b int64) int {
		ra, rb := boxes[a], boxes[b]
		if ya, yb := int(ra.MinY/100), int(rb.MinY/100); ya != yb {
			return ya - yb
		}
		if ra.MinX < rb.MinX {
			return -1
		}
		return 1
	})
	entries := func(yield func(int64, Rect) bool) {
		for _, id := range order {
			if !yield(id, boxes[id]) {
				return
			}
		}
	}
	if err := CreateSpatialIndexPacked(ctx, db, "surfaces", "geom", len(order), entries); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		var res string
		if err := db.QueryRow(`SELECT rtreecheck('idx_surfaces_geom')`).Scan(&res); err != nil || res != "ok" {
			t.Fatalf("%s: rtreecheck: %q %v", when, res, err)
		}
	}
	check("packed")
	if depth := queryInt(t, db, `SELECT (unhex(substr(hex(data), 1, 4)) = x'0002') FROM idx_surfaces_geom_node WHERE nodeno = 1`); depth != 1 {
		t.Errorf("root depth is not 2 for 5,000 entries of 51 per node")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM idx_surfaces_geom`); n != int64(len(surfaces)) {
		t.Errorf("index holds %d rows, want %d", n, len(surfaces))
	}
	db.Close()
	db = openDB(t, path)
	for _, q := range queryRects(350000, 5600000) {
		got := idsInWindow(t, db, q)
		if w := bruteForce(t, surfaces, q); !slices.Equal(got, w) {
			t.Errorf("window %v: ids %v, want %v", q, got, w)
		}
	}
	for _, s := range []string{
		`INSERT INTO idx_surfaces_geom VALUES (99999, 350100, 350110, 5600100, 5600110)`,
		`DELETE FROM idx_surfaces_geom WHERE pkid BETWEEN 1 AND 2000`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	check("after inserts and deletes")
	if n := queryInt(t, db, `SELECT count(*) FROM idx_surfaces_geom WHERE xmin <= 350110 AND xmax >= 350100 AND ymin <= 5600110 AND ymax >= 5600100 AND pkid = 99999`); n != 1 {
		t.Errorf("inserted box not found")
	}
}
