package tiles3d_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

const (
	tileE, tileN = 477000.0, 5551000.0 // south-west corner of the DGM tile
	tilePx       = 1000                // 1 m pixels
	tolerance    = 0.3
	nodataV      = -9999.0
)

// relief is the DGM: hills, a ridge with a sharp break, and a pond of
// NoData in the north-east.
func relief(col, row int) float32 {
	x, y := float64(col), float64(row)
	if math.Hypot(x-800, y-200) < 60 {
		return nodataV
	}
	h := 120 + 15*math.Sin(x/97)*math.Cos(y/131) + 3*math.Sin((x+2*y)/23)
	if x > 500 {
		h += 4 // a terrace edge
	}
	return float32(h)
}

// buildMesh imports the relief as a DGM pack and builds its terrain mesh.
func buildMesh(t *testing.T) (string, []float32) {
	t.Helper()
	g := raster.Grid{Width: tilePx, Height: tilePx, Data: make([]float32, tilePx*tilePx), EPSG: 25832,
		GeoTransform: [6]float64{tileE, 1, 0, tileN + tilePx, 0, -1}}
	for r := range tilePx {
		for c := range tilePx {
			g.Data[r*tilePx+c] = relief(c, r)
		}
	}
	nd := nodataV
	g.Nodata = &nd
	src := filepath.Join(t.TempDir(), "dgm1_32_477_5551.tif")
	var buf bytes.Buffer
	if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(src, buf.Bytes(), 0o644)
	data := t.TempDir()
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, []string{src}); err != nil {
		t.Fatal(err)
	}
	m, err := tiles3d.BuildTerrainMesh(context.Background(), tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance})
	if err != nil {
		t.Fatal(err)
	}
	if tm := m.TerrainMesh; tm == nil || tm.TileCount != 1 || tm.RTINToleranceM != tolerance || tm.TilingScheme != "single-level-quadtree" {
		t.Fatalf("manifest %+v", m.TerrainMesh)
	}
	return filepath.Join(data, "terrain-mesh", "he", "2026-07-20"), g.Data
}

// TestTerrainMesh checks the tileset, the b3dm container, the glTF with the
// Khronos validator, and the decoded Draco mesh against the DGM: at every
// lattice point the mesh is within the tolerance of the raster.
func TestTerrainMesh(t *testing.T) {
	dir, dgm := buildMesh(t)
	var ts struct {
		Asset          map[string]any
		GeometricError float64
		Root           struct {
			Refine   string
			Children []struct {
				Transform      []float64
				BoundingVolume struct{ Region []float64 }
				Content        struct{ URI string }
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "tileset.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.Asset["version"] != "1.0" || ts.GeometricError <= 0 || ts.Root.Refine != "REPLACE" || len(ts.Root.Children) != 1 {
		t.Fatalf("tileset %s", raw)
	}
	extras, _ := ts.Asset["extras"].(map[string]any)
	if extras["height_model"] != geoid.Default().ID() || !strings.HasSuffix(fmt.Sprint(extras["copyright"]), "; "+geoid.GCG2016Credit) {
		t.Errorf("asset.extras = %v", ts.Asset["extras"])
	}
	child := ts.Root.Children[0]
	reg := child.BoundingVolume.Region
	// Heights are ellipsoidal: the DGM's 110-130 m plus the undulation.
	n, _ := geoid.Default().Undulation(8.69, 50.115)
	if len(child.Transform) != 16 || len(reg) != 6 || reg[4] > 110+n || reg[5] < 130+n ||
		reg[0]*180/math.Pi > 8.69 || reg[2]*180/math.Pi < 8.69 || reg[1]*180/math.Pi > 50.115 || reg[3]*180/math.Pi < 50.115 {
		t.Fatalf("tile %+v", child)
	}
	b3dm, err := os.ReadFile(filepath.Join(dir, child.Content.URI))
	if err != nil {
		t.Fatal(err)
	}
	glbBytes := checkB3DM(t, b3dm)
	validate(t, glbBytes)
	pos, idx := decodeDraco(t, glbBytes)
	checkError(t, pos, idx, dgm)
}

func checkB3DM(t *testing.T, b []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 28 || string(b[:4]) != "b3dm" || le.Uint32(b[4:]) != 1 || int(le.Uint32(b[8:])) != len(b) || len(b)%8 != 0 {
		t.Fatalf("b3dm header % x", b[:min(len(b), 28)])
	}
	ftj, ftb, btj, btb := le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint32(b[20:]), le.Uint32(b[24:])
	start := 28 + int(ftj+ftb+btj+btb)
	if start%8 != 0 || !bytes.Contains(b[28:28+ftj], []byte(`"BATCH_LENGTH":0`)) || string(b[start:start+4]) != "glTF" {
		t.Fatalf("b3dm layout %d %d %d %d", ftj, ftb, btj, btb)
	}
	return b[start:]
}

func validate(t *testing.T, glbBytes []byte) {
	t.Helper()
	node := testtool.Node(t, "gltf-validator")
	path := filepath.Join(t.TempDir(), "tile.glb")
	os.WriteFile(path, glbBytes, 0o644)
	out, err := exec.Command(node, "../glb/testdata/validate.js", path).Output()
	if err != nil {
		t.Fatalf("validator: %v", err)
	}
	var rep struct {
		Errors   int
		Messages []string
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Errors != 0 {
		t.Fatalf("validator: %v %s", err, out)
	}
}

// decodeDraco decodes the tile's Draco buffer with the npm draco3d decoder
// (the one Cesium ships) and returns positions and triangle indexes.
func decodeDraco(t *testing.T, glbBytes []byte) ([]float64, []int) {
	t.Helper()
	atts, idx := decodeAll(t, glbBytes)
	pos, ok := atts["POSITION"]
	if !ok {
		t.Fatal("no POSITION attribute decoded")
	}
	return pos, idx
}

// checkError evaluates the decoded mesh at every lattice point the mesh
// was built from (1000 m / 1024 apart, so every DGM pixel holds at least
// one) away from the tile edge, and compares with the pixel holding it.
// Between lattice points a continuous mesh cannot follow the steps of a
// raster (the pond shore, the terrace), which is why the bound is stated at
// the lattice.
func checkError(t *testing.T, pos []float64, idx []int, dgm []float32) {
	t.Helper()
	const cx, cy = tileE + 500, tileN + 500
	const step = float64(tilePx) / 1024
	lowest := math.Inf(1)
	for _, v := range dgm {
		if v != nodataV {
			lowest = math.Min(lowest, float64(v))
		}
	}
	worst, checked := 0.0, 0
	seen := make([]bool, tilePx*tilePx)
	for i := 0; i+2 < len(idx); i += 3 {
		// glTF Y-up, relative to the tile centre: x east, y up, z south.
		var px, py, ph [3]float64
		for k := range 3 {
			p := idx[i+k]
			px[k], py[k], ph[k] = cx+pos[3*p], cy-pos[3*p+2], pos[3*p+1]
		}
		det := (py[1]-py[2])*(px[0]-px[2]) + (px[2]-px[1])*(py[0]-py[2])
		if det == 0 {
			continue
		}
		c0 := int(math.Floor((math.Min(px[0], math.Min(px[1], px[2])) - tileE) / step))
		c1 := int(math.Ceil((math.Max(px[0], math.Max(px[1], px[2])) - tileE) / step))
		r0 := int(math.Floor((tileN + tilePx - math.Max(py[0], math.Max(py[1], py[2]))) / step))
		r1 := int(math.Ceil((tileN + tilePx - math.Min(py[0], math.Min(py[1], py[2]))) / step))
		for r := r0; r <= r1; r++ {
			for c := c0; c <= c1; c++ {
				x, y := tileE+float64(c)*step, tileN+tilePx-float64(r)*step
				if x < tileE+1 || x > tileE+tilePx-1 || y < tileN+1 || y > tileN+tilePx-1 {
					continue
				}
				l1 := ((py[1]-py[2])*(x-px[2]) + (px[2]-px[1])*(y-py[2])) / det
				l2 := ((py[2]-py[0])*(x-px[2]) + (px[0]-px[2])*(y-py[2])) / det
				l3 := 1 - l1 - l2
				if l1 < -1e-6 || l2 < -1e-6 || l3 < -1e-6 {
					continue
				}
				col, row := int(x-tileE), int(tileN+tilePx-y)
				want := float64(dgm[row*tilePx+col])
				if want == nodataV {
					want = lowest
				}
				worst = math.Max(worst, math.Abs(l1*ph[0]+l2*ph[1]+l3*ph[2]-want))
				checked++
				seen[row*tilePx+col] = true
			}
		}
	}
	pixels := 0
	for r := 2; r < tilePx-2; r++ {
		for c := 2; c < tilePx-2; c++ {
			if !seen[r*tilePx+c] {
				t.Fatalf("pixel (%d, %d) holds no checked lattice point", c, r)
			}
			pixels++
		}
	}
	t.Logf("%d triangles, %d lattice points checked over %d pixels, worst error %.4f m (tolerance %g)", len(idx)/3, checked, pixels, worst, tolerance)
	// Draco's 18-bit quantization adds up to about 4 mm over a 1 km tile.
	if worst > tolerance+0.01 {
		t.Errorf("mesh deviates %.3f m from the DGM (tolerance %g m)", worst, tolerance)
	}
}

// TestHeightsAgainstPROJ follows sample vertices of the terrain mesh through
// the tile transform to ECEF, converts them to ellipsoidal lon, lat, h with
// PROJ (cs2cs EPSG:4978 -> EPSG:4979) and checks that h - H, H the vertex's
// DHHN2016 height, is the undulation of the German quasigeoid GCG2016 that
// PROJ itself interpolates there (cct +proj=vgridshift on PROJ-data's
// de_bkg_gcg2016.tif, written from the embedded copy, network off), within 0.05 m: the official DHHN2016 to
// ellipsoidal height conversion, not only the model svc embeds.
func TestHeightsAgainstPROJ(t *testing.T) {
	cs2cs := testtool.Require(t, "cs2cs", "apt-get install proj-bin")
	cct := testtool.Require(t, "cct", "apt-get install proj-bin")
	grid, err := geoid.WriteGCG2016(t.TempDir()) // by path: PROJ_DATA keeps proj.db for the other PROJ tools
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PROJ_NETWORK", "OFF")
	dir, _ := buildMesh(t)
	var ts struct {
		Root struct {
			Children []struct {
				Transform []float64
				Content   struct{ URI string }
			}
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "tileset.json"))
	if err := json.Unmarshal(raw, &ts); err != nil || len(ts.Root.Children) != 1 {
		t.Fatalf("tileset: %v", err)
	}
	child := ts.Root.Children[0]
	b3dm, _ := os.ReadFile(filepath.Join(dir, child.Content.URI))
	pos, _ := decodeDraco(t, checkB3DM(t, b3dm))
	m := child.Transform
	var in bytes.Buffer
	var hs []float64
	step := max(1, len(pos)/3/60)
	for i := 0; 3*i+2 < len(pos); i += step {
		// glTF Y-up to tile Z-up: (x, y, z) -> (x, -z, y).
		q := [3]float64{pos[3*i], -pos[3*i+2], pos[3*i+1]}
		x := m[0]*q[0] + m[4]*q[1] + m[8]*q[2] + m[12]
		y := m[1]*q[0] + m[5]*q[1] + m[9]*q[2] + m[13]
		z := m[2]*q[0] + m[6]*q[1] + m[10]*q[2] + m[14]
		fmt.Fprintf(&in, "%.4f %.4f %.4f\n", x, y, z)
		hs = append(hs, q[2])
	}
	geod := runProj(t, cs2cs, in.String(), "-f", "%.9f", "EPSG:4978", "EPSG:4979") // lat lon h
	var ll bytes.Buffer
	for _, f := range geod {
		fmt.Fprintf(&ll, "%s %s 0\n", f[1], f[0])
	}
	ns := runProj(t, cct, ll.String(), "-d", "6", "+proj=vgridshift", "+grids="+grid, "+multiplier=1")
	worst := 0.0
	for i, f := range geod {
		h, _ := strconv.ParseFloat(f[2], 64)
		n, _ := strconv.ParseFloat(ns[i][2], 64)
		worst = math.Max(worst, math.Abs(h-hs[i]-n))
	}
	t.Logf("%d vertices: worst |h - H - N(PROJ)| = %.4f m", len(geod), worst)
	if len(geod) < 30 || worst > 0.05 {
		t.Errorf("%d vertices, worst |h - H - N| = %.4f m (limit 0.05)", len(geod), worst)
	}
	if n, _ := strconv.ParseFloat(ns[0][2], 64); n < 40 || n > 55 {
		t.Errorf("GCG2016 undulation %.2f m in Hesse: wrong grid?", n)
	}
}

// runProj feeds lines to a PROJ tool and returns the fields of each output line.
func runProj(t *testing.T, tool, input string, args ...string) [][]string {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		rows = append(rows, strings.Fields(l))
	}
	if len(rows) != strings.Count(input, "\n") {
		t.Fatalf("%s: %d lines for %d inputs", tool, len(rows), strings.Count(input, "\n"))
	}
	return rows
}
