package glb

import (
	"errors"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// TestSolarAttributes: with Options.Solar every vertex of a roof polygon
// carries its Solar values as the roof_solar property attributes, the
// walls, the ground and a roof without values carry NoDataSolar; a
// builder without Features refuses the option, DracoGLB refuses the
// values.
func TestSolarAttributes(t *testing.T) {
	a, b := box("A", e0, n0, 10, 8, 100, 6), box("B", e0+20, n0, 10, 8, 110, 9)
	a.Surfaces[len(a.Surfaces)-1].Solar = []*Solar{{AnnualKWhM2: 1043.5, ShareOfBest: 0.87}}
	o := Options{MergeBuildings: true, IncludeGround: true, Features: true, Solar: true, YUp: true}
	bl := build(t, o, []Building{a, b})
	data, err := bl.GLB()
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, data)
	prim := d.Meshes[0].Primitives[0]
	read := func(name string) []float32 {
		v, err := modeler.ReadAccessor(d, d.Accessors[prim.Attributes[name]], nil)
		if err != nil {
			t.Fatal(err)
		}
		return v.([]float32)
	}
	fid, annual, share := read("_FEATURE_ID_0"), read(attrAnnual), read(attrShare)
	nrm, err := modeler.ReadNormal(d, d.Accessors[prim.Attributes[gltf.NORMAL]], nil)
	if err != nil {
		t.Fatal(err)
	}
	roofA := 0
	for i := range fid {
		want := [2]float32{NoDataSolar, NoDataSolar}
		if fid[i] == 0 && nrm[i][1] > 0.99 {
			want = [2]float32{1043.5, 0.87}
			roofA++
		}
		if got := [2]float32{annual[i], share[i]}; got != want {
			t.Fatalf("vertex %d (building %v, normal %v): %v, want %v", i, fid[i], nrm[i], got, want)
		}
	}
	if roofA != 4 {
		t.Errorf("%d roof vertices of A with values, want 4", roofA)
	}
	if _, err := bl.DracoGLB(); !errors.Is(err, ErrOptions) {
		t.Errorf("DracoGLB with solar values: %v, want ErrOptions", err)
	}
	if _, err := NewBuilder(Options{Solar: true}); !errors.Is(err, ErrOptions) {
		t.Errorf("Solar without Features: %v, want ErrOptions", err)
	}
}
