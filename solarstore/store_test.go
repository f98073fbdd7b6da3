package solarstore

import (
	"context"
	"database/sql"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func facet(sid int64, part int, annual int64, loss *Loss) Facet {
	f := Facet{SurfaceID: sid, Part: part, AnnualWhM2: annual, Unshaded: annual + 10, Loss: loss}
	for m := range f.MonthlyWhM2 {
		f.MonthlyWhM2[m] = annual / 12 * int64(m+1) / 6
	}
	return f
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	info := Info{LoD2Snapshot: "2026-01-01", Model: "NREL SPA, Perez", Shading: "terrain, buildings, trees",
		Climate: Climate{File: "tmy.csv", Format: "pvgis-csv", FirstYear: 2005, LastYear: 2020}, Best: Plane{TiltDeg: 37, AzimuthDeg: 180, AnnualWhM2: 1_234_567}}
	w, err := Create(ctx, path, info)
	if err != nil {
		t.Fatal(err)
	}
	a := Building{ID: 7, GMLID: "DENW_a", Facets: []Facet{facet(10, 0, 1_100_000, &Loss{1, 2, 3}), facet(10, 1, 900_000, &Loss{}), facet(12, 0, 800_123, &Loss{0, 5000, 0})}}
	b := Building{ID: 8, GMLID: "DENW_b", Shading: "not evaluated: degenerate ring", Facets: []Facet{facet(11, 0, 1_000_000, nil)}}
	empty := Building{ID: 9, GMLID: "DENW_c"}
	for _, x := range []Building{a, b, empty} {
		if err := w.Put(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Buildings != 3 || got.Facets != 4 {
		t.Fatalf("counts %d buildings %d facets, want 3 and 4", got.Buildings, got.Facets)
	}
	if _, err := Create(ctx, path, info); err == nil {
		t.Fatal("Create over an existing file succeeded")
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Info().Best != info.Best || s.Info().Facets != 4 || s.Info().Climate != info.Climate {
		t.Fatalf("info %+v", s.Info())
	}
	for _, want := range []Building{a, b, empty} {
		got, err := s.Building(ctx, want.GMLID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("building %s:\n got %+v\nwant %+v", want.GMLID, got, want)
		}
	}
	if _, err := s.Building(ctx, "DENW_none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown building: %v, want ErrNotFound", err)
	}
	var seen []Facet
	if err := s.Surfaces(ctx, []int64{12, 99, 11}, func(f Facet) error { seen = append(seen, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []Facet{b.Facets[0], a.Facets[2]}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("surfaces 12, 99, 11:\n got %+v\nwant %+v", seen, want)
	}
}

// TestReadableBySQLite: the file is plain SQLite that the sqlite3 CLI (and
// so QGIS and GDAL) reads: an operator can look into it.
func TestReadableBySQLite(t *testing.T) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		bin, err = exec.LookPath("spatialite")
	}
	if err != nil {
		t.Skip("sqlite3 not installed (apt-get install sqlite3)")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(ctx, path, Info{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Put(ctx, Building{ID: 1, GMLID: "g", Facets: []Facet{facet(5, 0, 1_050_000, nil)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, path, "SELECT gmlid, round(annual_wh_m2 / 1000.0, 2) FROM facets JOIN buildings USING (building_id);").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	if !strings.Contains(string(out), "g|1050.0") {
		t.Fatalf("%s answered %q, want g|1050.0", bin, out)
	}
}

// TestBestPerFacet: a default-climate store keeps each facet's cell's best
// plane (BestWhM2, Info.BestWhM2 prefers it); a store written before the
// column existed still opens and reads its facets with Info.Best.
func TestBestPerFacet(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(ctx, path, Info{Climate: Climate{Format: "cmsaf-monthly-means", Method: "synthesized"}})
	if err != nil {
		t.Fatal(err)
	}
	f := facet(5, 0, 1_050_000, nil)
	f.BestWhM2 = 1_300_000
	g := facet(6, 0, 1_000_000, nil)
	for _, b := range []Building{{ID: 1, GMLID: "g", Facets: []Facet{f}}, {ID: 2, GMLID: "h", Facets: []Facet{g}}} {
		if err := w.Put(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Building(ctx, "g")
	s.Close()
	if err != nil || len(b.Facets) != 1 || b.Facets[0] != f {
		t.Fatalf("building g: %+v %v, want facet %+v", b, err, f)
	}
	if got := (Info{Best: Plane{AnnualWhM2: 7}}).BestWhM2(f); got != 1_300_000 {
		t.Errorf("Info.BestWhM2 of a facet with its own best: %d", got)
	}
	if got := (Info{Best: Plane{AnnualWhM2: 7}}).BestWhM2(g); got != 7 {
		t.Errorf("Info.BestWhM2 of a facet without its own best: %d, want Info.Best's 7", got)
	}

	// The layout before best_wh_m2.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`DROP INDEX facets_building; ALTER TABLE facets DROP COLUMN best_wh_m2; ` + indexes)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var seen []Facet
	if err := s.Surfaces(ctx, []int64{5, 6}, func(f Facet) error { seen = append(seen, f); return nil }); err != nil {
		t.Fatal(err)
	}
	f.BestWhM2 = 0
	if want := []Facet{f, g}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("old layout:\n got %+v\nwant %+v", seen, want)
	}
}
