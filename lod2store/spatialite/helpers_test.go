package spatialite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/twpayne/go-geom"
	_ "modernc.org/sqlite"
)

// assertGeomEqual fails unless got and want have the same type, layout,
// coordinates and structure.
func assertGeomEqual(t testing.TB, got, want geom.T) {
	t.Helper()
	if err := geomDiff(got, want, 0); err != nil {
		t.Fatal(err)
	}
}

// assertGeomNear is assertGeomEqual with a coordinate tolerance.
func assertGeomNear(t testing.TB, got, want geom.T, tol float64) {
	t.Helper()
	if err := geomDiff(got, want, tol); err != nil {
		t.Fatal(err)
	}
}

func geomDiff(got, want geom.T, tol float64) error {
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		return fmt.Errorf("type %T, want %T", got, want)
	}
	if got.Layout() != want.Layout() {
		return fmt.Errorf("layout %v, want %v", got.Layout(), want.Layout())
	}
	if gc, ok := got.(*geom.GeometryCollection); ok {
		wc := want.(*geom.GeometryCollection)
		if gc.NumGeoms() != wc.NumGeoms() {
			return fmt.Errorf("%d members, want %d", gc.NumGeoms(), wc.NumGeoms())
		}
		for i := range gc.NumGeoms() {
			if err := geomDiff(gc.Geom(i), wc.Geom(i), tol); err != nil {
				return fmt.Errorf("member %d: %w", i, err)
			}
		}
		return nil
	}
	gf, wf := got.FlatCoords(), want.FlatCoords()
	if len(gf) != len(wf) {
		return fmt.Errorf("%d ordinates, want %d", len(gf), len(wf))
	}
	for i := range gf {
		if math.Abs(gf[i]-wf[i]) > tol {
			return fmt.Errorf("ordinate %d = %v, want %v", i, gf[i], wf[i])
		}
	}
	if !sameInts(got.Ends(), want.Ends()) {
		return fmt.Errorf("ends %v, want %v", got.Ends(), want.Ends())
	}
	ge, we := got.Endss(), want.Endss()
	if len(ge) != len(we) {
		return fmt.Errorf("endss %v, want %v", ge, we)
	}
	for i := range ge {
		if !sameInts(ge[i], we[i]) {
			return fmt.Errorf("endss %v, want %v", ge, we)
		}
	}
	return nil
}

func sameInts(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// surface is one row of the test pack's surfaces table.
type surface struct {
	id, buildingID int64
	gmlid          string
	class          int
	geom           *geom.MultiPolygon
}

// makeSurfaces returns n deterministic roof and ground surfaces near
// (x0, y0) in metres: slanted or flat rectangles, every third one with a
// hole, every fifth one a two-part multipolygon. Coordinates are on a
// millimetre grid so that GDAL's decimal output round-trips exactly.
func makeSurfaces(n int, x0, y0 float64, seed uint64) []surface {
	rng := rand.New(rand.NewPCG(seed, 42))
	mm := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	out := make([]surface, n)
	for i := range out {
		x, y := mm(x0+rng.Float64()*2000), mm(y0+rng.Float64()*2000)
		w, h := mm(4+rng.Float64()*20), mm(4+rng.Float64()*20)
		z, slope := mm(40+rng.Float64()*30), mm(rng.Float64()*0.5)
		class := 712
		if i%4 == 0 {
			class, slope = 710, 0
		}
		polys := [][][]geom.Coord{rectangle(x, y, w, h, z, slope, i%3 == 0, mm)}
		if i%5 == 0 {
			polys = append(polys, rectangle(x+w+5, y, w/2, h/2, z, slope, false, mm))
		}
		out[i] = surface{
			id: int64(i + 1), buildingID: int64(i/3 + 1), class: class,
			gmlid: fmt.Sprintf("DENW%08d_%d", i/3+1, i%3),
			geom:  geom.NewMultiPolygon(geom.XYZ).MustSetCoords(polys),
		}
	}
	return out
}

// rectangle returns a counter-clockwise rectangle whose height rises by
// slope per metre of x, optionally with a clockwise hole in the middle.
func rectangle(x, y, w, h, z, slope float64, hole bool, mm func(float64) float64) [][]geom.Coord {
	x, y, w, h = mm(x), mm(y), mm(w), mm(h)
	zf := func(px float64) float64 { return mm(z + slope*(px-x)) }
	rings := [][]geom.Coord{{
		{x, y, zf(x)}, {mm(x + w), y, zf(mm(x + w))}, {mm(x + w), mm(y + h), zf(mm(x + w))},
		{x, mm(y + h), zf(x)}, {x, y, zf(x)},
	}}
	if hole {
		hx, hy := mm(x+w/4), mm(y+h/4)
		hx2, hy2 := mm(x+w/2), mm(y+h/2)
		rings = append(rings, []geom.Coord{
			{hx, hy, zf(hx)}, {hx, hy2, zf(hx)}, {hx2, hy2, zf(hx2)}, {hx2, hy, zf(hx2)}, {hx, hy, zf(hx)},
		})
	}
	return rings
}

// openDB opens (creating) an SQLite file with the modernc driver.
func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

const surfacesDDL = `CREATE TABLE surfaces (surface_id INTEGER PRIMARY KEY, building_id INTEGER,
gmlid TEXT, surface_class INTEGER, geom BLOB)`

// buildPack writes a LoD2-style pack with the given surfaces to a new file
// in a temporary directory and returns its path. The spatial index is
// built; triggers are installed when triggers is set.
func buildPack(t testing.TB, surfaces []surface, srid int, triggers bool) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pack.sqlite")
	db := openDB(t, path)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(InitMetadata(ctx, db))
	_, err := db.ExecContext(ctx, surfacesDDL)
	must(err)
	must(AddGeometryColumn(ctx, db, "surfaces", "geom", srid, "MULTIPOLYGON", "XYZ"))
	tx, err := db.BeginTx(ctx, nil)
	must(err)
	ins, err := tx.PrepareContext(ctx, `INSERT INTO surfaces VALUES (?, ?, ?, ?, ?)`)
	must(err)
	var buf []byte
	for _, s := range surfaces {
		buf, err = AppendEncode(buf[:0], s.geom, srid)
		must(err)
		_, err = ins.ExecContext(ctx, s.id, s.buildingID, s.gmlid, s.class, buf)
		must(err)
	}
	must(ins.Close())
	must(tx.Commit())
	must(CreateSpatialIndex(ctx, db, "surfaces", "geom"))
	if triggers {
		must(CreateTriggers(ctx, db, "surfaces", "geom"))
	}
	must(db.Close())
	return path
}

// rtreeRect is r as SQLite's R*Tree stores it: float32, rounded outwards.
func rtreeRect(r Rect) Rect {
	down := func(v float64) float64 {
		f := float32(v)
		if float64(f) > v {
			f = math.Nextafter32(f, float32(math.Inf(-1)))
		}
		return float64(f)
	}
	up := func(v float64) float64 {
		f := float32(v)
		if float64(f) < v {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		return float64(f)
	}
	return Rect{down(r.MinX), down(r.MinY), up(r.MaxX), up(r.MaxY)}
}

// bruteForce returns the ids of surfaces whose R*Tree box meets q.
func bruteForce(t testing.TB, surfaces []surface, q Rect) []int64 {
	t.Helper()
	var ids []int64
	for _, s := range surfaces {
		b, err := Encode(s.geom, 25832)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Envelope(b)
		if err != nil {
			t.Fatal(err)
		}
		if rtreeRect(r).Intersects(q) {
			ids = append(ids, s.id)
		}
	}
	return ids
}
