package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/qmesh"
)

// TestQuantizedMeshDecodes serves the demo pack and reads a block of z=15
// quantized-mesh tiles over the Hesse DGM (and the ring around it) with an
// independent decoder (npm @here/quantized-mesh-decoder): every tile decodes
// with normals; each vertex height is GDAL's DGM value there
// (gdallocationinfo on a VRT of the COGs) plus PROJ's undulation of the
// German quasigeoid GCG2016 (cct vgridshift on PROJ-data's
// de_bkg_gcg2016.tif, network off), or the
// undulation alone where the DGM has no value, within
// the tile's RTIN tolerance; and neighbouring tiles have the same vertices
// on their common edges.
func TestQuantizedMeshDecodes(t *testing.T) {
	node := testtool.Node(t, "@here/quantized-mesh-decoder")
	gli := testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	vrt := testtool.Require(t, "gdalbuildvrt", "apt-get install gdal-bin")
	cct := testtool.Require(t, "cct", "apt-get install proj-bin")
	grid, err := geoid.WriteGCG2016(t.TempDir()) // by path: PROJ_DATA keeps proj.db for the other PROJ tools
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PROJ_NETWORK", "OFF")
	data := demoData(t)
	base := serveInBackground(t, data)

	var layer map[string]any
	getJSON(t, base+"/v1/terrain/quantized-mesh/layer.json", &layer)
	if layer["format"] != "quantized-mesh-1.0" || layer["scheme"] != "tms" || !strings.Contains(fmt.Sprint(layer["attribution"]), "HVBG") ||
		!strings.Contains(fmt.Sprint(layer["attribution"]), geoid.GCG2016Credit) {
		t.Fatalf("layer.json %v", layer)
	}

	cogs, _ := filepath.Glob(filepath.Join(data, "terrain", "he", "*", "tiles", "*.tif"))
	dir := t.TempDir()
	vrtPath := filepath.Join(dir, "he.vrt")
	if out, err := exec.Command(vrt, append([]string{"-q", vrtPath}, cogs...)...).CombinedOutput(); err != nil || len(cogs) == 0 {
		t.Fatalf("gdalbuildvrt %v: %v\n%s", cogs, err, out)
	}
	// The Hesse demo DGM: 8.664-8.692 E, 50.111-50.120 N.
	const z = 15
	size := 180 / math.Ldexp(1, z)
	x0, x1 := int((8.664+180)/size)-1, int((8.692+180)/size)+1
	y0, y1 := int((50.111+90)/size)-1, int((50.120+90)/size)+1
	type key struct{ x, y int }
	files := map[key]string{}
	var paths []string
	client := &http.Client{}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/terrain/quantized-mesh/%d/%d/%d.terrain", base, z, x, y), nil)
			req.Header.Set("Accept", "application/vnd.quantized-mesh;extensions=octvertexnormals,application/octet-stream;q=0.9")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.quantized-mesh" || resp.Header.Get("ETag") == "" {
				t.Fatalf("tile %d/%d/%d: %d %s", z, x, y, resp.StatusCode, resp.Header)
			}
			p := filepath.Join(dir, fmt.Sprintf("%d_%d.terrain", x, y))
			os.WriteFile(p, b, 0o644)
			files[key{x, y}] = p
			paths = append(paths, p)
		}
	}
	out, err := exec.Command(node, append([]string{"../qmesh/testdata/decode.cjs"}, paths...)...).Output()
	if err != nil {
		t.Fatalf("decoder: %v", err)
	}
	var dec map[string]struct {
		U, V, H                  []float64
		Triangles                int
		West, South, East, North []int
		Normals                  int
	}
	if err := json.Unmarshal(out, &dec); err != nil {
		t.Fatal(err)
	}
	// Every vertex: its lattice position, then GDAL and PROJ there.
	var pts bytes.Buffer
	type ref struct {
		file string
		i    int
	}
	var refs []ref
	for k, p := range files {
		d := dec[p]
		if len(d.U) == 0 || d.Triangles == 0 || d.Normals != 2*len(d.U) {
			t.Fatalf("tile %v: %d vertices, %d triangles, %d normal bytes", k, len(d.U), d.Triangles, d.Normals)
		}
		w, s := -180+float64(k.x)*size, -90+float64(k.y)*size
		for i := range d.U {
			c, r := math.Round(d.U[i]*64/32767), math.Round(d.V[i]*64/32767)
			fmt.Fprintf(&pts, "%.9f %.9f\n", w+size*c/64, s+size*r/64)
			refs = append(refs, ref{p, i})
		}
	}
	// gdallocationinfo prints nothing for a point off the raster: ask it
	// only about points inside the VRT's extent (the others have no DGM).
	var ext struct {
		Corners struct {
			LowerLeft  [2]float64 `json:"lowerLeft"`
			UpperRight [2]float64 `json:"upperRight"`
		} `json:"cornerCoordinates"`
	}
	info, err := exec.Command(testtool.Require(t, "gdalinfo", "apt-get install gdal-bin"), "-json", vrtPath).Output()
	if err != nil || json.Unmarshal(info, &ext) != nil || ext.Corners.UpperRight[0] == 0 {
		t.Fatalf("gdalinfo %s: %v", vrtPath, err)
	}
	var inside bytes.Buffer
	var insideIdx []int
	edge := map[int]bool{}
	for i, l := range strings.Split(strings.TrimSpace(pts.String()), "\n") {
		f := strings.Fields(l)
		lon, _ := strconv.ParseFloat(f[0], 64)
		lat, _ := strconv.ParseFloat(f[1], 64)
		// A metre inside the raster (UTM zone 32, as the Hesse DGM), so GDAL answers.
		e, n := geo.ToUTM(geo.Zone32, lon, lat)
		ll, ur := ext.Corners.LowerLeft, ext.Corners.UpperRight
		switch {
		case e > ll[0]+1 && e < ur[0]-1 && n > ll[1]+1 && n < ur[1]-1:
			inside.WriteString(l + "\n")
			insideIdx = append(insideIdx, i)
		case e > ll[0]-1 && e < ur[0]+1 && n > ll[1]-1 && n < ur[1]+1:
			edge[i] = true // on the raster's border: svc samples 0.6 m inward, GDAL may not answer
		}
	}
	gdal := make([]string, len(refs))
	for k, v := range runTool(t, gli, inside.String(), "-valonly", "-wgs84", vrtPath) {
		gdal[insideIdx[k]] = v
	}
	var pts3 bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(pts.String()), "\n") {
		pts3.WriteString(l + " 0\n")
	}
	proj := runTool(t, cct, pts3.String(), "-d", "6", "+proj=vgridshift", "+grids="+grid, "+multiplier=1")
	tol := math.Max(qmesh.GeometricError(z)/2, 0.25)
	worst, covered := 0.0, 0
	for i, r := range refs {
		if edge[i] {
			continue
		}
		n, _ := strconv.ParseFloat(strings.Fields(proj[i])[2], 64)
		want := n
		if v, err := strconv.ParseFloat(strings.TrimSpace(gdal[i]), 64); err == nil && v > -1000 {
			want += v
			covered++
		}
		got := dec[r.file].H[r.i]
		worst = math.Max(worst, math.Abs(got-want))
		if math.Abs(got-want) > tol {
			t.Errorf("%s vertex %d: %.3f m, GDAL+PROJ %.3f m (tolerance %.2f)", filepath.Base(r.file), r.i, got, want, tol)
			break
		}
	}
	if covered < 100 {
		t.Errorf("only %d vertices over DGM data", covered)
	}
	t.Logf("%d tiles, %d vertices (%d over the DGM): worst |h - (H_GDAL + N_PROJ)| = %.3f m (tolerance %.2f m)",
		len(files), len(refs), covered, worst, tol)
	// Shared edges.
	for k, p := range files {
		if q, ok := files[key{k.x + 1, k.y}]; ok {
			a, b := dec[p], dec[q]
			checkEdge(t, "east/west", a.East, b.West, a.V, b.V, a.H, b.H)
		}
		if q, ok := files[key{k.x, k.y + 1}]; ok {
			a, b := dec[p], dec[q]
			checkEdge(t, "north/south", a.North, b.South, a.U, b.U, a.H, b.H)
		}
	}
}

// checkEdge compares two tiles' vertices along their common edge: the same
// positions (along the edge) and heights within a centimetre.
func checkEdge(t *testing.T, name string, e1, e2 []int, pos1, pos2, h1, h2 []float64) {
	t.Helper()
	if len(e1) != len(e2) {
		t.Errorf("%s: %d vs %d edge vertices", name, len(e1), len(e2))
		return
	}
	for k := range e1 {
		if pos1[e1[k]] != pos2[e2[k]] || math.Abs(h1[e1[k]]-h2[e2[k]]) > 0.01 {
			t.Errorf("%s: vertex %d at %v/%v, heights %.3f/%.3f", name, k, pos1[e1[k]], pos2[e2[k]], h1[e1[k]], h2[e2[k]])
			return
		}
	}
}

// runTool feeds input to a command line tool and returns its output lines.
func runTool(t *testing.T, tool, input string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != strings.Count(input, "\n") {
		t.Fatalf("%s: %d lines for %d inputs", tool, len(lines), strings.Count(input, "\n"))
	}
	return lines
}
