package tiles3d_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/tiles3d"
)

// TestVegetationThemes imports the synthetic CDSM for three BL snapshots and
// checks both 3D Tiles themes: tilesets, glb and b3dm validity (Khronos
// validator), instancing, the Draco mesh decoded by draco3d within the RTIN
// tolerance at every lattice point, and COLOR_0 and curtains by recipe.
func TestVegetationThemes(t *testing.T) {
	for _, tc := range []struct {
		name, bl, snapshot string
		dgm, hardened      bool
	}{
		{"he hardened on DGM", "he", "2026-07-20", true, true},
		{"ni hardened", "ni", "2026-07-20", false, true},
		{"nrw classic", "nrw", "2026-07-16", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := vegPack(t, tc.bl, tc.snapshot, tc.dgm)
			trees := readTheme(t, dir, tiles3d.ThemeTrees, "1.1")
			validate(t, trees)
			checkInstances(t, trees, tc.dgm)
			glbBytes := checkB3DM(t, readTheme(t, dir, tiles3d.ThemePlantcover, "1.0"))
			validate(t, glbBytes)
			if got := strings.Contains(glbJSON(t, glbBytes), `"COLOR_0"`); got != tc.hardened {
				t.Fatalf("COLOR_0 present %v, want %v", got, tc.hardened)
			}
			if tc.dgm {
				return // the lattice checks below assume ground at 0
			}
			atts, idx := decodeAll(t, glbBytes)
			pos := atts["POSITION"]
			checkPlantError(t, pos, idx)
			canopy := make([]float32, len(pos)/3)
			for i := range canopy {
				if pos[3*i+1] > 1 {
					canopy[i] = float32(pos[3*i+1])
				}
			}
			share := tiles3d.CurtainShare(toU32(idx), canopy)
			if (share == 0) != tc.hardened {
				t.Errorf("curtain share %.3f (hardened %v)", share, tc.hardened)
			}
			if tc.hardened {
				checkColors(t, pos, atts["COLOR_0"])
			}
		})
	}
}

func toU32(v []int) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = uint32(x)
	}
	return out
}

// checkInstances reads the trees glb: one instanced node with as many
// instances as known trees, each scaled by a positive crown radius and
// height, standing on the DGM when there is one (else at 0).
func checkInstances(t *testing.T, b []byte, dgm bool) {
	t.Helper()
	var doc struct {
		ExtensionsRequired []string
		Nodes              []struct {
			Extensions map[string]struct{ Attributes map[string]int }
		}
		Accessors   []struct{ BufferView, Count int }
		BufferViews []struct{ ByteOffset, ByteLength int }
	}
	js := glbJSON(t, b)
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	inst, ok := doc.Nodes[0].Extensions["EXT_mesh_gpu_instancing"]
	if !ok || len(doc.ExtensionsRequired) != 1 || doc.ExtensionsRequired[0] != "EXT_mesh_gpu_instancing" {
		t.Fatalf("trees glb without required instancing: %s", js)
	}
	bin := b[20+len(js)+8:]
	floats := func(name string) []float32 {
		a := doc.Accessors[inst.Attributes[name]]
		if a.Count != len(knownTrees) {
			t.Fatalf("%s: %d instances, want %d", name, a.Count, len(knownTrees))
		}
		bv := doc.BufferViews[a.BufferView]
		out := make([]float32, 3*a.Count)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(bin[bv.ByteOffset+4*i:]))
		}
		return out
	}
	tr, sc := floats("TRANSLATION"), floats("SCALE")
	for i, k := range knownTrees {
		want := 0.0
		if dgm {
			want = float64(relief(k.c, k.r)) // both tiles share their north-west corner
		}
		if math.Abs(float64(tr[3*i+1])-want) > 0.5 || math.Abs(float64(sc[3*i+1])-k.h) > 1e-3 || sc[3*i] <= 0 || sc[3*i] != sc[3*i+2] {
			t.Errorf("tree %d: translation %v scale %v, want foot at %.2f and height %g", i, tr[3*i:3*i+3], sc[3*i:3*i+3], want, k.h)
		}
	}
}

// checkPlantError evaluates the decoded mesh (ground at 0) at every lattice
// point inside its triangles: within the RTIN tolerance of the CDSM pixel
// holding the point (the lattice is the pixel corners, step 1 m).
func checkPlantError(t *testing.T, pos []float64, idx []int) {
	t.Helper()
	const cx, cy = tileE + vegPx/2, tileN + tilePx - vegPx/2
	const x0, y0 = tileE, tileN + tilePx
	worst, checked := 0.0, 0
	for i := 0; i+2 < len(idx); i += 3 {
		var px, py, ph [3]float64
		for k := range 3 {
			p := idx[i+k]
			px[k], py[k], ph[k] = cx+pos[3*p], cy-pos[3*p+2], pos[3*p+1]
		}
		det := (py[1]-py[2])*(px[0]-px[2]) + (px[2]-px[1])*(py[0]-py[2])
		if det == 0 {
			continue
		}
		for c := int(math.Floor(min(px[0], px[1], px[2]) - x0)); c <= int(math.Ceil(max(px[0], px[1], px[2])-x0)); c++ {
			for r := int(math.Floor(y0 - max(py[0], py[1], py[2]))); r <= int(math.Ceil(y0-min(py[0], py[1], py[2]))); r++ {
				x, y := x0+float64(c), y0-float64(r)
				l1 := ((py[1]-py[2])*(x-px[2]) + (px[2]-px[1])*(y-py[2])) / det
				l2 := ((py[2]-py[0])*(x-px[2]) + (px[0]-px[2])*(y-py[2])) / det
				if l1 < -1e-6 || l2 < -1e-6 || 1-l1-l2 < -1e-6 {
					continue
				}
				want := float64(cdsmValue(min(c, vegPx-1), min(r, vegPx-1)))
				if want < 2 {
					want = 0
				}
				worst = math.Max(worst, math.Abs(l1*ph[0]+l2*ph[1]+(1-l1-l2)*ph[2]-want))
				checked++
			}
		}
	}
	t.Logf("%d triangles, %d lattice points checked, worst error %.4f m (tolerance %g)", len(idx)/3, checked, worst, tolerance)
	if checked == 0 || worst > tolerance+0.01 {
		t.Errorf("plantcover deviates %.3f m from the CDSM over %d points (tolerance %g m)", worst, checked, tolerance)
	}
}

// checkColors checks COLOR_0 against each vertex's height (ground at 0):
// R the height over 0..50 m, G and B the class colour.
func checkColors(t *testing.T, pos, col []float64) {
	t.Helper()
	if len(col) != 4*len(pos)/3 {
		t.Fatalf("%d colour values for %d vertices", len(col), len(pos)/3)
	}
	for i := range len(pos) / 3 {
		h := pos[3*i+1]
		if math.Abs(h-5) < 0.01 || math.Abs(h-15) < 0.01 {
			continue
		}
		want := tiles3d.ClassColor(h)
		for k := range 4 {
			if math.Abs(col[4*i+k]-float64(want[k])) > 1 {
				t.Fatalf("vertex %d at %.3f m: colour %v, want %v", i, h, col[4*i:4*i+4], want)
			}
		}
	}
}

// decodeAll decodes the glTF's Draco buffer with draco3d and returns its
// attributes by glTF name and the triangle indexes.
func decodeAll(t *testing.T, glbBytes []byte) (map[string][]float64, []int) {
	t.Helper()
	node := testtool.Node(t, "draco3d")
	var doc struct {
		BufferViews []struct{ ByteOffset, ByteLength int }
		Meshes      []struct {
			Primitives []struct {
				Extensions map[string]struct {
					BufferView int
					Attributes map[string]int
				}
			}
		}
	}
	js := glbJSON(t, glbBytes)
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	ext, ok := doc.Meshes[0].Primitives[0].Extensions["KHR_draco_mesh_compression"]
	if !ok {
		t.Fatal("plantcover is not Draco-compressed")
	}
	bin := glbBytes[20+len(js)+8:]
	bv := doc.BufferViews[ext.BufferView]
	drc := filepath.Join(t.TempDir(), "tile.drc")
	os.WriteFile(drc, bin[bv.ByteOffset:bv.ByteOffset+bv.ByteLength], 0o644)
	out, err := exec.Command(node, "../glb/draco/testdata/decode.js", drc).Output()
	if err != nil {
		t.Fatalf("draco3d: %v", err)
	}
	var mesh struct {
		Indices    []int
		Attributes []struct {
			ID     int
			Values []float64
		}
	}
	if err := json.Unmarshal(out, &mesh); err != nil {
		t.Fatal(err)
	}
	atts := map[string][]float64{}
	for name, id := range ext.Attributes {
		for _, a := range mesh.Attributes {
			if a.ID == id {
				atts[name] = a.Values
			}
		}
	}
	return atts, mesh.Indices
}

// TestBuildVegetation rebuilds the themes of a pack imported before its
// DGM: the new version keeps the CDSM, passes the manifest check, and its
// trees now stand on the terrain.
func TestBuildVegetation(t *testing.T) {
	dir := vegPack(t, "he", "2026-07-20", false)
	data := filepath.Dir(filepath.Dir(filepath.Dir(dir)))
	dgmPack(t, data, writeGrid(t, t.TempDir(), "dgm1.tif", tilePx, tileN, relief))
	m, err := tiles3d.BuildVegetation(context.Background(), tiles3d.BuildVegetationOptions{DataDir: data, BL: "he", ToleranceM: tolerance})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pack.ReadManifest(dir); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, th := range m.Vegetation.Themes {
		names = append(names, th.Name+":"+th.Kind)
	}
	if got := strings.Join(names, ","); got != "cdsm:raster_cog,trees:3dtiles,plantcover:3dtiles" {
		t.Fatalf("themes %s", got)
	}
	checkInstances(t, readTheme(t, dir, tiles3d.ThemeTrees, "1.1"), true)
	if _, err := tiles3d.BuildVegetation(context.Background(), tiles3d.BuildVegetationOptions{DataDir: data, BL: "nrw"}); !errors.Is(err, tiles3d.ErrNoSource) {
		t.Errorf("BL without vegetation: %v", err)
	}
}
