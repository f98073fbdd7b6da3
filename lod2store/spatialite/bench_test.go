package spatialite

import (
	"context"
	"testing"
)

// benchSurfaces is a fixed set of LoD2-like surfaces (about 5 to 15
// vertices each, a third with a hole, a fifth with two parts).
func benchSurfaces(b *testing.B, n int) ([]surface, [][]byte) {
	b.Helper()
	surfaces := makeSurfaces(n, 350000, 5600000, 1)
	blobs := make([][]byte, n)
	for i, s := range surfaces {
		var err error
		if blobs[i], err = Encode(s.geom, 25832); err != nil {
			b.Fatal(err)
		}
	}
	return surfaces, blobs
}

func BenchmarkEncode(b *testing.B) {
	surfaces, _ := benchSurfaces(b, 1000)
	buf := make([]byte, 0, 4096)
	var err error
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range surfaces {
			if buf, err = AppendEncode(buf[:0], s.geom, 25832); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(surfaces))/b.Elapsed().Seconds(), "surfaces/s")
}

func BenchmarkDecode(b *testing.B) {
	_, blobs := benchSurfaces(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		for _, blob := range blobs {
			if _, _, err := Decode(blob); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(blobs))/b.Elapsed().Seconds(), "surfaces/s")
}

func BenchmarkEnvelope(b *testing.B) {
	_, blobs := benchSurfaces(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		for _, blob := range blobs {
			if _, err := Envelope(blob); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(blobs))/b.Elapsed().Seconds(), "surfaces/s")
}

// BenchmarkCreateSpatialIndex measures the bulk R*Tree build over a
// 20,000-surface table on disk.
func BenchmarkCreateSpatialIndex(b *testing.B) {
	const n = 20000
	surfaces, _ := benchSurfaces(b, n)
	db := openDB(b, buildPack(b, surfaces, 25832, false))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := CreateSpatialIndex(ctx, db, "surfaces", "geom"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
}
