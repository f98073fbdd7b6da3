package measure

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/internal/testtool"
)

var samples = []string{"samples/real/LoD2_32_280_5659_1_NW.gml", "samples/real/3910_5817.gml", "samples/LoD2_33_392_5820_1_BE_sample.gml"}

func readBuildings(t *testing.T, path string) []*citygml.Building {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := citygml.NewReader(f, filepath.Base(path))
	var out []*citygml.Building
	for {
		b, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
}

type judged struct {
	GroundPlan float64    `json:"ground_plan"`
	RoofPlan   float64    `json:"roof_plan"`
	Walls      float64    `json:"walls"`
	Roof       [4]float64 `json:"roof"`
	Volume     float64    `json:"volume"`
}

// relDiff is |a-b| relative to the larger magnitude (absolute below 1).
func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestSamplesPython judges the measures of every building of the real and
// synthetic samples against testdata/judge.py: ElementTree parsing and
// other formulas (triangle fans, shoelace, signed tetrahedra). Areas agree
// to 1e-9 relative. The volumes of closed shells agree exactly only where
// every polygon is planar: on a non-planar polygon a fan of triangles and
// the vertex centroid's plane enclose different volumes, by at most the
// polygon's area times its largest vertex distance from its plane; the
// test allows the sum of that bound over the building's polygons.
func TestSamplesPython(t *testing.T) {
	t.Parallel()
	python := testtool.Require(t, "python3", "apt-get install python3")
	for _, s := range samples {
		t.Run(filepath.Base(s), func(t *testing.T) {
			t.Parallel()
			path := testtool.Shared(t, s)
			out, err := exec.Command(python, "testdata/judge.py", path).Output()
			if err != nil {
				t.Fatalf("judge.py: %v", err)
			}
			var want map[string]judged
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			bs := readBuildings(t, path)
			if len(bs) != len(want) {
				t.Fatalf("%d buildings, judge.py %d", len(bs), len(want))
			}
			worstA, worstV, closed, bad := 0.0, 0.0, 0, 0
			for _, b := range bs {
				m, w := Of(b), want[b.ID]
				fp := w.GroundPlan
				if m.FootprintSource == FromRoof {
					fp = w.RoofPlan
				}
				diffs := []float64{relDiff(m.FootprintAreaM2, fp), relDiff(m.WallAreaM2, w.Walls), relDiff(m.RoofAreaTotalM2, w.Roof[0]+w.Roof[1]+w.Roof[2]+w.Roof[3])}
				for k := range w.Roof {
					diffs = append(diffs, relDiff(m.RoofAreaM2[k], w.Roof[k]))
				}
				dA := 0.0
				for _, d := range diffs {
					dA = math.Max(dA, d)
				}
				dV, okV := 0.0, true
				if m.Closed {
					closed++
					dV = relDiff(m.VolumeM3, w.Volume)
					okV = math.Abs(m.VolumeM3-w.Volume) <= nonPlanarBound(b)+1e-9*w.Volume
				}
				worstA, worstV = math.Max(worstA, dA), math.Max(worstV, dV)
				if dA > 1e-9 || !okV {
					if bad++; bad <= 3 {
						t.Errorf("%s: measure %+v\njudge.py %+v", b.ID, m, w)
					}
				}
			}
			t.Logf("%d buildings, %d closed; largest relative difference: areas %.2g, volumes %.2g", len(bs), closed, worstA, worstV)
		})
	}
}

// nonPlanarBound is Σ area × largest plane distance over b's polygons (m³).
func nonPlanarBound(b *citygml.Building) float64 {
	s := 0.0
	for _, sf := range b.Surfaces {
		for _, p := range sf.Polygons {
			a, _ := AreaTilt(p)
			_, d := citygml.CheckPolygon(p, citygml.DefaultPlanarityTolM)
			s += a * d
		}
	}
	return s
}

// TestFootprintSpatialite judges the footprint areas of the samples against
// spatialite's ST_Area of the same polygons (x, y only).
func TestFootprintSpatialite(t *testing.T) {
	t.Parallel()
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	for _, s := range samples {
		t.Run(filepath.Base(s), func(t *testing.T) {
			t.Parallel()
			bs := readBuildings(t, testtool.Shared(t, s))
			var sql strings.Builder
			sql.WriteString("CREATE TABLE g(id TEXT, wkt TEXT);\nBEGIN;\n")
			for _, b := range bs {
				cls := citygml.Ground
				if Of(b).FootprintSource == FromRoof {
					cls = citygml.Roof
				}
				for _, sf := range b.Surfaces {
					if sf.Class != cls {
						continue
					}
					for _, p := range sf.Polygons {
						fmt.Fprintf(&sql, "INSERT INTO g VALUES('%s','%s');\n", b.ID, wkt2D(p))
					}
				}
			}
			sql.WriteString("COMMIT;\nSELECT id || ' ' || printf('%.9f', SUM(ST_Area(GeomFromText(wkt)))) FROM g GROUP BY id;\n")
			cmd := exec.Command(bin, "-silent", ":memory:")
			cmd.Stdin = strings.NewReader(sql.String())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("spatialite: %v\n%s", err, out)
			}
			want := map[string]float64{}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				id, v, ok := strings.Cut(line, " ")
				f, err := strconv.ParseFloat(v, 64)
				if !ok || err != nil {
					continue // spatialite's banner lines
				}
				want[id] = f
			}
			worst := 0.0
			for _, b := range bs {
				m := Of(b)
				d := relDiff(m.FootprintAreaM2, want[b.ID])
				worst = math.Max(worst, d)
				if d > 1e-8 {
					t.Errorf("%s: footprint %.6f m² (%s), spatialite %.6f", b.ID, m.FootprintAreaM2, m.FootprintSource, want[b.ID])
				}
			}
			t.Logf("%d buildings; largest relative difference %.2g", len(bs), worst)
		})
	}
}

// wkt2D writes a polygon's rings in x, y as WKT.
func wkt2D(p citygml.Polygon) string {
	var b strings.Builder
	b.WriteString("POLYGON(")
	for i, r := range append([]citygml.Ring{p.Exterior}, p.Interiors...) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for j, q := range r {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(q[0], 'f', -1, 64) + " " + strconv.FormatFloat(q[1], 'f', -1, 64))
		}
		b.WriteByte(')')
	}
	b.WriteByte(')')
	return b.String()
}
