package raster

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds adds every testdata TIFF and a small WriteCOG file to f.
func addSeeds(f *testing.F) {
	f.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.tif"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var b bytes.Buffer
	if err := WriteCOG(&b, genGrid(20, 10, 1), WriteOptions{Compression: CompressionZSTD}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
}

// FuzzOpen opens arbitrary bytes as a GeoTIFF, then samples and reads it:
// nothing may panic, and every allocation stays capped.
func FuzzOpen(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		c, err := Open(ctx, BytesSource(data), NewCache(4<<20))
		if err != nil {
			return
		}
		i := c.Info()
		minX, minY, maxX, maxY := i.Bounds()
		for level := range i.Overviews + 1 {
			for k := range 9 {
				x := minX + (maxX-minX)*float64(k%3)/2.5
				y := minY + (maxY-minY)*float64(k/3)/2.5
				_, _, _ = c.SampleLevel(ctx, level, x, y)
			}
		}
		if i.Width*i.Height <= 1<<16 {
			if g, err := c.ReadGrid(ctx); err == nil && len(g.Data) != i.Width*i.Height {
				t.Fatalf("ReadGrid returned %d pixels for %dx%d", len(g.Data), i.Width, i.Height)
			}
		}
	})
}

// FuzzDecode feeds arbitrary block bytes to every codec and predictor.
func FuzzDecode(f *testing.F) {
	seed := fixtureBytes(f, "f32_deflate_p3_tiled")
	f.Add(seed[456:486], uint8(2), uint8(3), uint8(2), uint8(16), uint8(16))
	var b bytes.Buffer
	_ = WriteCOG(&b, genGrid(4, 4, 1), WriteOptions{Compression: CompressionZSTD})
	f.Add(b.Bytes()[len(b.Bytes())-200:], uint8(4), uint8(3), uint8(2), uint8(16), uint8(16))
	f.Add([]byte{0xfe, 0x01, 0x02, 0x80, 0x00}, uint8(3), uint8(1), uint8(0), uint8(8), uint8(2))
	f.Fuzz(func(t *testing.T, comp []byte, cs, pred, typ, w, h uint8) {
		schemes := []Compression{CompressionNone, CompressionLZW, CompressionDeflate, CompressionPackBits, CompressionZSTD}
		types := []struct {
			f    SampleFormat
			bits int
		}{{SampleUint, 8}, {SampleInt, 16}, {SampleFloat, 32}, {SampleFloat, 64}, {SampleUint, 32}, {SampleInt, 64}}
		cache := NewCache(0)
		ty := types[int(typ)%len(types)]
		c := codec{
			compression: schemes[int(cs)%len(schemes)], predictor: Predictor(1 + pred%3),
			format: ty.f, bits: ty.bits, bo: binary.BigEndian, zstd: cache.decoder,
		}
		blk, err := c.decode(comp, int(w), int(h))
		if err != nil {
			return
		}
		if n := len(blk.f32) + len(blk.f64); n != int(w)*int(h) {
			t.Fatalf("decoded %d samples for %dx%d", n, w, h)
		}
	})
}
