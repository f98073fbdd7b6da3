package raster

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// benchCOG opens a 2048x2048 WriteCOG raster (16 full-resolution tiles)
// with a cache that holds all of them.
func benchCOG(b *testing.B, opts WriteOptions) (*COG, []byte) {
	b.Helper()
	var buf bytes.Buffer
	if err := WriteCOG(&buf, genGrid(2048, 2048, 2), opts); err != nil {
		b.Fatal(err)
	}
	c, err := Open(context.Background(), BytesSource(buf.Bytes()), NewCache(64<<20))
	if err != nil {
		b.Fatal(err)
	}
	return c, buf.Bytes()
}

// BenchmarkSample measures warm-cache point samples on one goroutine.
func BenchmarkSample(b *testing.B) {
	c, _ := benchCOG(b, WriteOptions{})
	minX, minY, maxX, maxY := c.Info().Bounds()
	pts := randomPoints(1, 1000, minX, minY, maxX, maxY)
	ctx := context.Background()
	for _, p := range pts { // warm the cache
		_, _, _ = c.Sample(ctx, p[0], p[1])
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pts {
			if _, _, err := c.Sample(ctx, p[0], p[1]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(pts))/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkSampleParallel measures warm samples from all cores at once.
func BenchmarkSampleParallel(b *testing.B) {
	c, _ := benchCOG(b, WriteOptions{})
	minX, minY, maxX, maxY := c.Info().Bounds()
	pts := randomPoints(1, 1000, minX, minY, maxX, maxY)
	ctx := context.Background()
	for _, p := range pts {
		_, _, _ = c.Sample(ctx, p[0], p[1])
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			p := pts[i%len(pts)]
			i++
			_, _, _ = c.Sample(ctx, p[0], p[1])
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// benchDecode measures decoding one cold 512x512 float32 tile, predictor
// undo included, from its compressed bytes in memory.
func benchDecode(b *testing.B, opts WriteOptions) {
	c, data := benchCOG(b, opts)
	lv := c.levels[0]
	idx := 5 // an inner tile without nodata
	comp := data[lv.offsets[idx] : lv.offsets[idx]+lv.counts[idx]]
	b.ReportAllocs()
	b.SetBytes(512 * 512 * 4)
	for b.Loop() {
		if _, err := lv.codec.decode(comp, lv.blockW, lv.blockH); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/tile")
}

func BenchmarkDecodeTileDeflate(b *testing.B) { benchDecode(b, WriteOptions{}) }
func BenchmarkDecodeTileZSTD(b *testing.B) {
	benchDecode(b, WriteOptions{Compression: CompressionZSTD})
}

// BenchmarkWriteCOG measures writing a 2048x2048 grid with overviews.
func BenchmarkWriteCOG(b *testing.B) {
	g := genGrid(2048, 2048, 2)
	b.ReportAllocs()
	b.SetBytes(int64(len(g.Data) * 4))
	for b.Loop() {
		if err := WriteCOG(io.Discard, g, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(g.Data))/b.Elapsed().Seconds()/1e6, "Mpixels/s")
}
