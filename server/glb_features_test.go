package server

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/gdaljudge"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestGLBFeatureMetadata: the GLB export of the real Berlin sample carries
// each building as a feature (issue 25 point 4). Read back with a small
// decoder of its own (GLB chunks, accessors, the EXT_structural_metadata
// property table), every feature id names a building of the file whose
// function, roof type and storeys GDAL's GML driver reads, and its
// vertices reach exactly the ridge height of its metadata; the Khronos
// validator finds no error in the plain and the Draco GLB, and glTF-
// Transform decoding the Draco GLB (draco3dgltf, glb/testdata/features.mjs) sees the same feature ids
// with the same vertex z ranges.
func TestGLBFeatureMetadata(t *testing.T) {
	sample := testtool.Shared(t, "samples/real/3910_5817.gml")
	h, _ := wholeServerData(t)
	path := "/v1/buildings/3d.glb?bbox=13.396,52.493,13.406,52.500&z_base=absolute"
	get := func(p string) []byte {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", p, rec.Code, rec.Body.Bytes())
		}
		return rec.Body.Bytes()
	}
	plain := get(path)
	g := decodeGLB(t, plain)
	table := g.propertyTable(t)
	zr := g.featureZ(t)
	want := map[string]gdaljudge.Owner{}
	for _, o := range gdaljudge.Read(t, sample).Buildings {
		want[o.ID] = o
	}
	ids := table.strings(t, "gmlid")
	fns, roofs, storeys := table.strings(t, "function"), table.strings(t, "roof_type"), table.ints(t, "storeys")
	ridge, height := table.floats(t, "ridge_z_m"), table.floats(t, "height_m")
	if len(ids) < 90 || len(zr) != len(ids) {
		t.Fatalf("%d features in the table, %d with vertices", len(ids), len(zr))
	}
	checked := map[string]int{}
	for i, id := range ids {
		w, ok := want[id]
		if !ok {
			t.Errorf("feature %d: %q is no building of the file", i, id)
			continue
		}
		if len(w.Function) > 0 {
			if !slices.Contains(w.Function, fns[i]) {
				t.Errorf("feature %d (%s): function %q, GDAL reads %v", i, id, fns[i], w.Function)
			}
			checked["function"]++
		}
		if len(w.RoofType) > 0 {
			if roofs[i] != w.RoofType[0] {
				t.Errorf("feature %d (%s): roof_type %q, GDAL reads %v", i, id, roofs[i], w.RoofType)
			}
			checked["roof_type"]++
		}
		if len(w.Storeys) > 0 {
			if strconv.Itoa(int(storeys[i])) != w.Storeys[0] {
				t.Errorf("feature %d (%s): storeys %d, GDAL reads %v", i, id, storeys[i], w.Storeys)
			}
			checked["storeys"]++
		}
		// z_base=absolute: the vertices keep the stored heights.
		if z := zr[float64(i)]; math.Abs(z[2]-ridge[i]) > 1e-3 || height[i] <= 0 {
			t.Errorf("feature %d (%s): vertices up to %.3f m, ridge_z_m %.3f, height_m %.3f", i, id, z[2], ridge[i], height[i])
		}
	}
	if checked["function"] < 80 || checked["roof_type"] < 40 {
		t.Errorf("checked %v", checked)
	}
	t.Logf("%d features; compared with GDAL: %v; e.g. feature 0 = %s, function %s, roof %s, height %.2f m", len(ids), checked, ids[0], fns[0], roofs[0], height[0])

	if bare := decodeGLB(t, get(path+"&feature_metadata=false")); bare.JSON.Extensions["EXT_structural_metadata"] != nil ||
		bare.JSON.Meshes[0].Primitives[0].Attributes["_FEATURE_ID_0"] != 0 {
		t.Error("feature_metadata=false still writes feature ids or metadata")
	}
	draco := get(path + "&compression=draco&merge_buildings=false")
	dir := t.TempDir()
	node := testtool.Node(t, "gltf-validator", "@gltf-transform/core", "@gltf-transform/extensions", "draco3dgltf")
	root, _ := testtool.ModuleRoot()
	for name, data := range map[string][]byte{"plain": plain, "draco": draco} {
		file := filepath.Join(dir, name+".glb")
		os.WriteFile(file, data, 0o644)
		rep, err := exec.Command(node, filepath.Join(root, "glb", "testdata", "validate.js"), file).Output()
		if err != nil || !strings.Contains(string(rep), `"errors":0,`) {
			t.Errorf("gltf-validator %s: %v %s", name, err, rep)
		}
	}
	out, err := exec.Command(node, filepath.Join(root, "glb", "testdata", "features.mjs"), filepath.Join(dir, "draco.glb")).Output()
	if err != nil {
		t.Fatalf("features.mjs: %v %s", err, exitStderrOf(err))
	}
	var dz map[string][3]float64
	if err := json.Unmarshal(out, &dz); err != nil {
		t.Fatal(err)
	}
	if len(dz) != len(zr) {
		t.Errorf("glTF-Transform reads %d feature ids from the Draco GLB, the plain one has %d", len(dz), len(zr))
	}
	for fid, z := range zr {
		d := dz[strconv.Itoa(int(fid))]
		// Draco quantizes positions (18 bits over the mesh's extent).
		if math.Abs(d[1]-z[1]) > 0.01 || math.Abs(d[2]-z[2]) > 0.01 {
			t.Errorf("feature %v: Draco z %.3f..%.3f, plain %.3f..%.3f", fid, d[1], d[2], z[1], z[2])
		}
	}
}

// glbDoc is a GLB as this test's own decoder reads it: the JSON chunk
// (only what the test needs) and the BIN chunk.
type glbDoc struct {
	JSON struct {
		BufferViews []struct{ ByteOffset, ByteLength, ByteStride int }
		Accessors   []struct {
			BufferView    *int
			ByteOffset    int
			ComponentType int
			Count         int
			Type          string
		}
		Meshes []struct {
			Primitives []struct{ Attributes map[string]int }
		}
		Extensions map[string]json.RawMessage
	}
	bin []byte
}

func decodeGLB(t *testing.T, data []byte) *glbDoc {
	t.Helper()
	if len(data) < 20 || string(data[:4]) != "glTF" || binary.LittleEndian.Uint32(data[8:]) != uint32(len(data)) {
		t.Fatalf("not a GLB of %d bytes", len(data))
	}
	g := &glbDoc{}
	for off := 12; off+8 <= len(data); {
		n, kind := int(binary.LittleEndian.Uint32(data[off:])), string(data[off+4:off+8])
		chunk := data[off+8 : off+8+n]
		switch kind {
		case "JSON":
			if err := json.Unmarshal(chunk, &g.JSON); err != nil {
				t.Fatal(err)
			}
		case "BIN\x00":
			g.bin = chunk
		}
		off += 8 + n
	}
	return g
}

// view returns the bytes of buffer view i.
func (g *glbDoc) view(i int) []byte {
	v := g.JSON.BufferViews[i]
	return g.bin[v.ByteOffset : v.ByteOffset+v.ByteLength]
}

// floats reads accessor i of FLOAT components (tightly packed).
func (g *glbDoc) floats(t *testing.T, i int) []float32 {
	a := g.JSON.Accessors[i]
	comps := map[string]int{"SCALAR": 1, "VEC3": 3}[a.Type]
	if a.ComponentType != 5126 || a.BufferView == nil || comps == 0 || g.JSON.BufferViews[*a.BufferView].ByteStride != 0 {
		t.Fatalf("accessor %d: %+v is not a packed FLOAT scalar or vec3", i, a)
	}
	b := g.view(*a.BufferView)[a.ByteOffset:]
	out := make([]float32, a.Count*comps)
	for k := range out {
		out[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return out
}

// featureZ returns per feature id the vertex count and z range.
func (g *glbDoc) featureZ(t *testing.T) map[float64][3]float64 {
	out := map[float64][3]float64{}
	for _, m := range g.JSON.Meshes {
		for _, p := range m.Primitives {
			fa, ok := p.Attributes["_FEATURE_ID_0"]
			if !ok {
				t.Fatal("primitive without _FEATURE_ID_0")
			}
			pos, fid := g.floats(t, p.Attributes["POSITION"]), g.floats(t, fa)
			for v, f := range fid {
				e, ok := out[float64(f)]
				if !ok {
					e = [3]float64{0, math.Inf(1), math.Inf(-1)}
				}
				z := float64(pos[3*v+2])
				out[float64(f)] = [3]float64{e[0] + 1, math.Min(e[1], z), math.Max(e[2], z)}
			}
		}
	}
	return out
}

// propTable is the first property table of EXT_structural_metadata.
type propTable struct {
	g     *glbDoc
	count int
	props map[string]struct {
		Values, StringOffsets int
	}
}

func (g *glbDoc) propertyTable(t *testing.T) propTable {
	t.Helper()
	var ext struct {
		PropertyTables []struct {
			Class      string
			Count      int
			Properties map[string]struct{ Values, StringOffsets int }
		}
	}
	raw, ok := g.JSON.Extensions["EXT_structural_metadata"]
	if err := json.Unmarshal(raw, &ext); !ok || err != nil || len(ext.PropertyTables) != 1 || ext.PropertyTables[0].Class != "building" {
		t.Fatalf("EXT_structural_metadata %s: %v", raw, err)
	}
	pt := ext.PropertyTables[0]
	return propTable{g: g, count: pt.Count, props: pt.Properties}
}

// strings reads a STRING property ("" for every feature when the table
// omits it: all noData).
func (p propTable) strings(t *testing.T, name string) []string {
	out := make([]string, p.count)
	c, ok := p.props[name]
	if !ok {
		return out
	}
	vals, offs := p.g.view(c.Values), p.g.view(c.StringOffsets)
	for i := range out {
		out[i] = string(vals[binary.LittleEndian.Uint32(offs[4*i:]):binary.LittleEndian.Uint32(offs[4*i+4:])])
	}
	return out
}

// floats reads a FLOAT64 property.
func (p propTable) floats(t *testing.T, name string) []float64 {
	b := p.g.view(p.props[name].Values)
	out := make([]float64, p.count)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// ints reads an INT32 property.
func (p propTable) ints(t *testing.T, name string) []int32 {
	b := p.g.view(p.props[name].Values)
	out := make([]int32, p.count)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
