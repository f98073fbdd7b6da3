package tiles3d

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
)

// TestBuildingInputsBytes holds appendBuildingInputs to the bytes the
// inputs hash of a leaf was fed before it (inputHash.str of the gml:id,
// the id and fmt.Sprint(class, ends), floats64 of the coordinates), so
// that the leaves of packs built before it are still reused.
func TestBuildingInputsBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 50 {
		bd := lod2store.Building3D{BuildingID: rng.Int64N(1 << 40), GMLID: fmt.Sprintf("DENW%08dBL", k)}
		for range rng.IntN(5) {
			s := lod2store.Surface3D{Class: rng.IntN(300) - 10}
			for range rng.IntN(3) {
				var e []int
				for range rng.IntN(4) {
					e = append(e, rng.IntN(1000))
				}
				s.Ends = append(s.Ends, e)
			}
			for range rng.IntN(30) {
				s.Flat = append(s.Flat, rng.NormFloat64()*1e5)
			}
			bd.Surfaces = append(bd.Surfaces, s)
		}
		old := newInputHash("leaf", k)
		old.str(bd.GMLID)
		old.str(strconv.FormatInt(bd.BuildingID, 10))
		for _, s := range bd.Surfaces {
			old.str(fmt.Sprint(s.Class, s.Ends))
			old.floats64(s.Flat)
		}
		now := newInputHash("leaf", k)
		now.h.Write(appendBuildingInputs(nil, &bd))
		if a, b := old.sum(), now.sum(); a != b {
			t.Fatalf("building %d (%+v): inputs hash %s, was %s", k, bd, b, a)
		}
	}
}
