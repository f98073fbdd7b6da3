package spatialite

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/twpayne/go-geom/encoding/wkt"
)

// run executes a tool and returns its standard output.
func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return stdout.String()
}

var interopPacks = []struct {
	name   string
	srid   int
	x0, y0 float64
}{
	{"utm32", 25832, 350000, 5600000},
	{"utm33", 25833, 390000, 5800000},
}

const interopCount = 300

// TestInteropOGRInfo checks that GDAL opens our pack as a SpatiaLite layer
// with the right type, CRS and count, and reads the same geometries.
func TestInteropOGRInfo(t *testing.T) {
	t.Parallel()
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	for _, p := range interopPacks {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			surfaces := makeSurfaces(interopCount, p.x0, p.y0, uint64(p.srid))
			path := buildPack(t, surfaces, p.srid, false)
			summary := run(t, ogrinfo, "-ro", "-so", "-al", path)
			for _, want := range []string{
				"using driver `SQLite' successful",
				"Layer name: surfaces\n",
				"Geometry: 3D Multi Polygon\n",
				fmt.Sprintf("Feature Count: %d\n", interopCount),
				fmt.Sprintf(`ID["EPSG",%d]]`, p.srid),
				"FID Column = surface_id\n",
				"Geometry Column = geom\n",
			} {
				if !strings.Contains(summary, want) {
					t.Errorf("ogrinfo -so lacks %q:\n%s", want, summary)
				}
			}
			got := ogrGeometries(t, run(t, ogrinfo, "-ro", "-al", "-q", path))
			if len(got) != len(surfaces) {
				t.Fatalf("ogrinfo listed %d features, want %d", len(got), len(surfaces))
			}
			for _, s := range surfaces {
				g, err := wkt.Unmarshal(got[s.id])
				if err != nil {
					t.Fatalf("feature %d: %v", s.id, err)
				}
				if err := geomDiff(g, s.geom, 0); err != nil {
					t.Fatalf("feature %d: %v", s.id, err)
				}
			}
		})
	}
}

// ogrGeometries maps feature ids to the WKT ogrinfo printed for them.
func ogrGeometries(t *testing.T, out string) map[int64]string {
	t.Helper()
	m := map[int64]string{}
	var fid int64 = -1
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "OGRFeature(surfaces):"); ok {
			id, err := strconv.ParseInt(rest, 10, 64)
			if err != nil {
				t.Fatalf("ogrinfo line %q: %v", line, err)
			}
			fid = id
		} else if w, ok := strings.CutPrefix(line, "  MULTIPOLYGON"); ok && fid >= 0 {
			m[fid] = "MULTIPOLYGON" + w
		}
	}
	return m
}

// queryRects returns fixed query windows over the fixture area, on whole
// metres so that their decimal form in SQL is exact.
func queryRects(x0, y0 float64) []Rect {
	rng := rand.New(rand.NewPCG(7, 7))
	out := []Rect{{x0 - 10, y0 - 10, x0 + 3000, y0 + 3000}, {0, 0, 1, 1}}
	for range 6 {
		x, y := float64(int(x0+rng.Float64()*1800)), float64(int(y0+rng.Float64()*1800))
		s := float64(50 + rng.IntN(400))
		out = append(out, Rect{x, y, x + s, y + s})
	}
	return out
}

// TestInteropSpatialite checks the pack with the spatialite CLI: metadata
// version, validity and type of every geometry, index consistency and
// R*Tree queries through SpatialIndex and through a join on the idx table.
func TestInteropSpatialite(t *testing.T) {
	t.Parallel()
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	p := interopPacks[0]
	surfaces := makeSurfaces(interopCount, p.x0, p.y0, 3)
	path := buildPack(t, surfaces, p.srid, false)
	n := strconv.Itoa(interopCount)
	for _, c := range []struct{ name, sql, want string }{
		{"metadata v4", "SELECT CheckSpatialMetaData()", "3"},
		{"all valid", "SELECT count(*) FROM surfaces WHERE ST_IsValid(geom)", n},
		{"type and srid", "SELECT count(*) FROM surfaces WHERE ST_GeometryType(geom) = 'MULTIPOLYGON Z' AND ST_Srid(geom) = 25832", n},
		{"index consistent", "SELECT CheckSpatialIndex('surfaces', 'geom')", "1"},
		{"index complete", "SELECT count(*) FROM idx_surfaces_geom", n},
		{"geometry constraints", "SELECT count(*) FROM surfaces WHERE GeometryConstraints(geom, 1006, 25832) = 1", n},
		{"vector_layers", "SELECT table_name || ',' || geometry_type || ',' || srid FROM vector_layers", "surfaces,1006,25832"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.TrimSpace(run(t, bin, path, c.sql+";")); got != c.want {
				t.Errorf("%s = %q, want %q", c.sql, got, c.want)
			}
		})
	}
	partial := 0
	for i, q := range queryRects(p.x0, p.y0) {
		want := bruteForce(t, surfaces, q)
		if len(want) > 0 && len(want) < len(surfaces) {
			partial++
		}
		frame := fmt.Sprintf("BuildMbr(%g, %g, %g, %g, 25832)", q.MinX, q.MinY, q.MaxX, q.MaxY)
		queries := map[string]string{
			"SpatialIndex": "SELECT surface_id FROM surfaces WHERE ROWID IN (SELECT ROWID FROM SpatialIndex " +
				"WHERE f_table_name = 'surfaces' AND f_geometry_column = 'geom' AND search_frame = " + frame + ")",
			"idx join": fmt.Sprintf("SELECT s.surface_id FROM surfaces s JOIN idx_surfaces_geom i ON i.pkid = s.ROWID "+
				"WHERE i.xmin <= %g AND i.xmax >= %g AND i.ymin <= %g AND i.ymax >= %g", q.MaxX, q.MinX, q.MaxY, q.MinY),
		}
		for name, sqlText := range queries {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				got := parseIDs(t, run(t, bin, path, sqlText+";"))
				if !slices.Equal(got, want) {
					t.Errorf("ids %v, want %v", got, want)
				}
			})
		}
	}
	if partial < 4 {
		t.Errorf("only %d query windows select part of the fixture; the comparison is too weak", partial)
	}
}

func parseIDs(t *testing.T, out string) []int64 {
	t.Helper()
	var ids []int64
	for _, f := range strings.Fields(out) {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("id %q: %v", f, err)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// TestInteropTriggers checks that with CreateTriggers the file behaves like
// a native one in spatialite: inserts reach the index, constraint
// violations are rejected, and GDAL stops trusting stale statistics.
func TestInteropTriggers(t *testing.T) {
	t.Parallel()
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	path := buildPack(t, makeSurfaces(20, 350000, 5600000, 5), 25832, true)
	out := run(t, bin, path, "INSERT INTO surfaces VALUES (1000, 1, 'x', 712, "+
		"GeomFromText('MULTIPOLYGON Z(((1 1 1, 2 1 1, 2 2 1, 1 1 1)))', 25832)); "+
		"SELECT pkid, xmin, xmax FROM idx_surfaces_geom WHERE pkid = 1000; "+
		"SELECT CheckSpatialIndex('surfaces', 'geom');")
	if got := strings.Fields(out); !slices.Equal(got, []string{"1000|1.0|2.0", "1"}) {
		t.Errorf("after spatialite insert: %q", out)
	}
	cmd := exec.Command(bin, path, "INSERT INTO surfaces VALUES (1001, 1, 'x', 712, GeomFromText('POINT(1 1)', 25832));")
	if msg, _ := cmd.CombinedOutput(); !strings.Contains(string(msg), "violates Geometry constraint") {
		t.Errorf("point insert not rejected: %s", msg)
	}
	if s := run(t, ogrinfo, "-ro", "-so", path, "surfaces"); !strings.Contains(s, "Feature Count: 21\n") {
		t.Errorf("ogrinfo after insert:\n%s", s)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
