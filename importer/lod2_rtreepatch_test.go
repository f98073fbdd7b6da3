package importer

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestPatchedRTreeInGISTools imports the real NRW tile cut into 40 files,
// then 10 snapshots in a row, each moving a roof in 2 files (5 %) and
// patching the pack before (its R*Tree patched, not packed again). After
// the 10th the spatialite CLI finds the spatial index consistent with the
// geometries (CheckSpatialIndex) and answers window queries through
// SpatiaLite's SpatialIndex with exactly the surfaces (by gml:id) it
// answers on a full import of the same files; 192 windows of 50 m read at
// most 1.25 times the R*Tree nodes they read on the full import's tree.
func TestPatchedRTreeInGISTools(t *testing.T) {
	t.Parallel()
	requireSample(t, sampleNRW)
	spatialite := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	src := t.TempDir()
	paths, _ := splitSample(t, sampleNRW, src, splitOptions{Parts: 8, Replicas: 5})
	data := t.TempDir()
	run := func(data, snap string) LoD2Summary {
		t.Helper()
		var sum LoD2Summary
		c := Common{DataDir: data, BL: "nrw", Snapshot: snap, LicenseID: "dl-de-zero-2.0", Workers: 2, Summary: &sum}
		if _, err := LoD2(context.Background(), c, []string{src}); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	run(data, "2026-01-01")
	snap := ""
	for round := range 10 {
		for _, p := range []string{paths[(2*round*7)%len(paths)], paths[(2*round*7+3)%len(paths)]} {
			moveRoof(t, p, round)
		}
		snap = fmt.Sprintf("%d-01-01", 2027+round)
		if sum := run(data, snap); !sum.Patched || sum.ParsedFiles != 2 {
			t.Fatalf("snapshot %s: patched %v (%s), parsed %d", snap, sum.Patched, sum.NoPatch, sum.ParsedFiles)
		}
	}
	patched := filepath.Join(data, "lod2", "nrw", snap, LoD2File)
	fullData := t.TempDir()
	run(fullData, snap)
	full := filepath.Join(fullData, "lod2", "nrw", snap, LoD2File)
	// SpatiaLite's history of the column says how each patch went.
	updated := testtool.SQLRows(t, patched, `SELECT count(*) FROM spatialite_history WHERE event LIKE '%Spatial Index successfully updated'`)
	t.Logf("R*Tree patched in place by %s of the 10 imports", strings.TrimSpace(updated))
	if n, _ := strconv.Atoi(strings.TrimSpace(updated)); n < 8 {
		t.Errorf("the R*Tree was patched in place by %s of 10 imports, want at least 8", updated)
	}
	var frames []string
	for i := range 6 {
		x, y := 280740+float64(i)*40, 5659020+float64(i)*50 // the tile's buildings: 280735-281000, 5659009-5659368
		frames = append(frames, fmt.Sprintf("BuildMbr(%g, %g, %g, %g, 25832)", x, y, x+60+float64(i)*10, y+60))
	}
	ask := func(file string) string {
		t.Helper()
		sql := "SELECT CheckSpatialIndex('surfaces', 'geom');"
		for _, f := range frames {
			sql += " SELECT count(*), group_concat(gmlid) FROM (SELECT gmlid FROM surfaces WHERE ROWID IN (SELECT ROWID FROM SpatialIndex" +
				" WHERE f_table_name = 'surfaces' AND search_frame = " + f + ") AND MbrIntersects(geom, " + f + ") ORDER BY gmlid);"
		}
		out, err := exec.Command(spatialite, "-silent", file, sql).Output()
		if err != nil {
			t.Fatalf("spatialite: %v\n%s", err, out)
		}
		return string(out)
	}
	got, want := ask(patched), ask(full)
	if !strings.HasPrefix(got, "1\n") || got != want {
		t.Errorf("spatialite on the pack patched 10 times:\n%.400s\nwant (full import):\n%.400s", got, want)
	}
	if strings.Count(want, "\n0|") > len(frames)/2 {
		t.Errorf("most windows empty: %.400s", want)
	}
	var windows [][4]float64
	for x := 280700.0; x < 281000; x += 25 {
		for y := 5659000.0; y < 5659400; y += 25 {
			windows = append(windows, [4]float64{x, y, x + 50, y + 50})
		}
	}
	np, nf := rtreeNodesVisited(t, patched, windows), rtreeNodesVisited(t, full, windows)
	t.Logf("R*Tree nodes read by %d windows of 50 m: %d patched 10 times, %d full import", len(windows), np, nf)
	if float64(np) > 1.25*float64(nf) {
		t.Errorf("the R*Tree patched 10 times reads %d nodes for %d windows, a full import's %d", np, len(windows), nf)
	}
}

// moveRoof moves the first roof of the CityGML file at path north, in
// place, by 1 m in the metres digit of its northings (9s kept): the file
// keeps its size, its time is now.
func moveRoof(t *testing.T, path string, round int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r0 := bytes.Index(raw, []byte("<bldg:RoofSurface"))
	at := r0 + bytes.Index(raw[r0:], []byte("<gml:posList"))
	end := at + bytes.Index(raw[at:], []byte("</gml:posList>"))
	copy(raw[at:end], moveNorth.ReplaceAllFunc(raw[at:end], func(m []byte) []byte {
		if d := m[len(m)-1]; d < '9' {
			m = append(bytes.Clone(m[:len(m)-1]), d+1)
		}
		return m
	}))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rtreeNodesVisited counts the nodes of the surfaces' R*Tree a depth-first
// search of each window reads: what a query costs, whatever the load.
func rtreeNodesVisited(t *testing.T, path string, windows [][4]float64) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
	n := 0
	var visit func(no int64, height int, w [4]float64)
	visit = func(no int64, height int, w [4]float64) {
		n++
		b := nodes[no]
		for i := range int(binary.BigEndian.Uint16(b[2:])) {
			c := b[4+i*24:]
			f := func(j int) float64 { return float64(math.Float32frombits(binary.BigEndian.Uint32(c[8+4*j:]))) }
			if height > 0 && f(0) <= w[2] && f(1) >= w[0] && f(2) <= w[3] && f(3) >= w[1] {
				visit(int64(binary.BigEndian.Uint64(c)), height-1, w)
			}
		}
	}
	for _, w := range windows {
		visit(1, int(binary.BigEndian.Uint16(nodes[1])), w)
	}
	return n
}
