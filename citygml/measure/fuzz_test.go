package measure

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/citygml"
)

// FuzzOf derives the measures of whatever the reader makes of arbitrary
// bytes (seeded with the citygml fixtures): no panic, areas and volume
// finite and non-negative, a reason exactly when the shell is not closed.
func FuzzOf(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.gml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := citygml.NewReader(bytes.NewReader(data), "fuzz.gml")
		for range 100 {
			b, err := r.Next()
			if err == io.EOF || err != nil {
				return
			}
			m := Of(b)
			vals := append([]float64{m.FootprintAreaM2, m.RoofAreaTotalM2, m.WallAreaM2, m.VolumeM3}, m.RoofAreaM2[:]...)
			for _, v := range vals {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("measure %g in %+v", v, m)
				}
			}
			if m.Closed == (m.VolumeReason != "") {
				t.Fatalf("closed %v with reason %q", m.Closed, m.VolumeReason)
			}
		}
	})
}

// BenchmarkOf measures deriving the measures of the real Berlin sample's
// buildings (the importer's per-building cost).
func BenchmarkOf(b *testing.B) {
	path := "../../../shared/samples/real/3910_5817.gml"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip("sample not available:", err)
	}
	r := citygml.NewReader(bytes.NewReader(data), path)
	var bs []*citygml.Building
	for {
		bl, err := r.Next()
		if err != nil {
			break
		}
		bs = append(bs, bl)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, bl := range bs {
			_ = Of(bl)
		}
	}
	b.ReportMetric(float64(b.N*len(bs))/b.Elapsed().Seconds(), "buildings/s")
}
