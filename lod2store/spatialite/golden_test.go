package spatialite

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/twpayne/go-geom/encoding/wkt"
)

var update = flag.Bool("update", false, "regenerate testdata/golden/*.hex with the spatialite CLI")

// goldenCase is a geometry whose BLOB the spatialite CLI produced. The
// committed testdata/golden/<name>.hex holds the output of
//
//	spatialite :memory: "SELECT hex(GeomFromText('<wkt>', <srid>))"
//
// (or CompressGeometry(GeomFromText(...)) when compressed is set); go test
// -update regenerates them.
type goldenCase struct {
	name       string
	wkt        string
	srid       int
	compressed bool // SpatiaLite's compressed encoding: decode only
}

var goldenCases = []goldenCase{
	{name: "polygon_z", srid: 25832, wkt: "POLYGON Z ((500000 5600000 100, 500010.5 5600000 101.25, 500010.5 5600010 102, 500000 5600010 103, 500000 5600000 100))"},
	{name: "polygon_hole_xy", srid: 25833, wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))"},
	{name: "multipolygon_z", srid: 25832, wkt: "MULTIPOLYGON Z (((500000 5600000 50, 500020 5600000 50, 500020 5600020 55, 500000 5600020 55, 500000 5600000 50), (500005 5600005 51, 500005 5600010 52, 500010 5600010 52, 500010 5600005 51, 500005 5600005 51)), ((500030 5600030 60, 500040 5600030 60, 500040 5600040 61, 500030 5600030 60)))"},
	{name: "multipolygon_xy", srid: 4258, wkt: "MULTIPOLYGON (((7.1 50.7, 7.2 50.7, 7.2 50.8, 7.1 50.7)), ((8 51, 8.5 51, 8.5 51.5, 8 51)))"},
	{name: "point_z", srid: 4326, wkt: "POINT Z (7.0949 50.7374 60.5)"},
	{name: "point_m", srid: 25832, wkt: "POINT M (1 2 3)"},
	{name: "linestring_zm", srid: 25833, wkt: "LINESTRING ZM (0 0 1 10, 5 5 2 20, 10 0 3 30)"},
	{name: "multipoint_z", srid: 25832, wkt: "MULTIPOINT Z ((1 2 3), (4 5 6))"},
	{name: "multilinestring_xy", srid: 25832, wkt: "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3, 4 2))"},
	{name: "collection_xy", srid: 4326, wkt: "GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1), POLYGON ((0 0, 1 0, 1 1, 0 0)))"},
	{name: "compressed_polygon_z", srid: 25832, compressed: true, wkt: "POLYGON Z ((500000 5600000 100, 500010.5 5600000 101.25, 500010.5 5600010 102, 500000 5600010 103, 500000 5600000 100))"},
	{name: "compressed_polygon_zm", srid: 25832, compressed: true, wkt: "POLYGON ZM ((0 0 1 5, 10 0 2 6, 10 10 3 7, 0 10 4 8, 0 0 1 5))"},
	{name: "compressed_polygon_m", srid: 25832, compressed: true, wkt: "POLYGON M ((0 0 5, 10 0 6, 10 10 7, 0 10 8, 0 0 5))"},
	{name: "compressed_multilinestring_xy", srid: 25833, compressed: true, wkt: "MULTILINESTRING ((0 0, 10 0, 10 10, 20 10), (1 1, 2 2))"},
}

// spatialiteSQL is the expression the spatialite CLI evaluates for c.
func (c goldenCase) spatialiteSQL() string {
	e := fmt.Sprintf("GeomFromText('%s', %d)", c.wkt, c.srid)
	if c.compressed {
		e = "CompressGeometry(" + e + ")"
	}
	return "SELECT hex(" + e + ");"
}

// spatialiteHex evaluates every case in one spatialite run and returns the
// hex strings in order.
func spatialiteHex(t *testing.T, cases []goldenCase) []string {
	t.Helper()
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	var sqlText strings.Builder
	for _, c := range cases {
		sqlText.WriteString(c.spatialiteSQL())
	}
	cmd := exec.Command(bin, ":memory:", sqlText.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("spatialite: %v: %s", err, stderr.String())
	}
	lines := strings.Fields(stdout.String())
	if len(lines) != len(cases) {
		t.Fatalf("spatialite printed %d values for %d queries: %q", len(lines), len(cases), stdout.String())
	}
	return lines
}

func goldenPath(name string) string { return filepath.Join("testdata", "golden", name+".hex") }

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(goldenPath(name))
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	return b
}

// TestGoldenUpdate rewrites the golden files from the spatialite CLI when
// -update is given.
func TestGoldenUpdate(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/golden")
	}
	for i, h := range spatialiteHex(t, goldenCases) {
		if err := os.WriteFile(goldenPath(goldenCases[i].name), []byte(h+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoldenEncode checks that Encode reproduces SpatiaLite's bytes exactly
// and that Decode reads them back as the WKT geometry.
func TestGoldenEncode(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := readGolden(t, c.name)
			g, err := wkt.Unmarshal(c.wkt)
			if err != nil {
				t.Fatalf("wkt: %v", err)
			}
			got, srid, err := Decode(want)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if srid != c.srid || got.SRID() != c.srid {
				t.Errorf("srid = %d (geometry %d), want %d", srid, got.SRID(), c.srid)
			}
			if c.compressed {
				// float32 deltas: equal within float32 precision.
				assertGeomNear(t, got, g, 1e-3)
				return
			}
			assertGeomEqual(t, got, g)
			enc, err := Encode(g, c.srid)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			assertBytes(t, enc, want)
		})
	}
}

// TestGoldenMatchesSpatialite re-runs the spatialite CLI and compares its
// output with the committed golden files, so a drift in either shows up.
func TestGoldenMatchesSpatialite(t *testing.T) {
	t.Parallel()
	live := spatialiteHex(t, goldenCases)
	for i, c := range goldenCases {
		got, err := hex.DecodeString(live[i])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Run(c.name, func(t *testing.T) { assertBytes(t, got, readGolden(t, c.name)) })
	}
}

// assertBytes reports the first differing byte rather than a hash.
func assertBytes(t *testing.T, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	n := min(len(got), len(want))
	for i := range n {
		if got[i] != want[i] {
			t.Fatalf("first difference at byte %d: got %02x, want %02x (len %d vs %d)", i, got[i], want[i], len(got), len(want))
		}
	}
	t.Fatalf("length %d, want %d (common prefix equal)", len(got), len(want))
}
