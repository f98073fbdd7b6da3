package glb

import (
	"bytes"
	"testing"
)

// TestWriteGLBMatchesGLB streams every option family and compares with the
// GLB built in memory, byte for byte, including the size reported first.
func TestWriteGLBMatchesGLB(t *testing.T) {
	t.Parallel()
	bs := town(80, e0, n0, 400)
	for name, o := range map[string]Options{
		"merged":   {MergeBuildings: true, IncludeGround: true},
		"colored":  {MergeBuildings: true, ColorizeRoofs: true, WeldToleranceM: 0.05},
		"separate": {ColorizeRoofs: true, IncludeGround: true, RotateXDeg: -90},
		"features": {MergeBuildings: true, IncludeGround: true, Features: true, YUp: true},
		"empty":    {MergeBuildings: true},
	} {
		t.Run(name, func(t *testing.T) {
			o.Zone, o.OriginE, o.OriginN = 32, e0+200, n0+200
			in := bs
			if name == "empty" {
				in = nil
			}
			b := build(t, o, in)
			want, err := b.GLB()
			if err != nil {
				t.Fatal(err)
			}
			size, err := b.GLBSize()
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := b.WriteGLB(&got); err != nil {
				t.Fatal(err)
			}
			if size != int64(len(want)) || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("streamed %d bytes (size said %d), in memory %d; equal %v", got.Len(), size, len(want), bytes.Equal(got.Bytes(), want))
			}
		})
	}
}
