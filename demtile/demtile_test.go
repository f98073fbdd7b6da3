package demtile

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/svc-geodata/svc/hillshade"
)

func TestPackDecode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		enc     Encoding
		h       float64
		r, g, b uint8
	}{
		{"rgb sea level", TerrainRGB, 0, 0x01, 0x86, 0xa0}, // 100000
		{"rgb Zugspitze", TerrainRGB, 2962.06, 0x01, 0xfa, 0x55},
		{"rgb lowest", TerrainRGB, -10000, 0, 0, 0},
		{"rgb below range", TerrainRGB, -20000, 0, 0, 0},
		{"terrarium sea level", Terrarium, 0, 0x80, 0, 0},
		{"terrarium -0.5", Terrarium, -0.5, 0x7f, 0xff, 0x80},
		{"terrarium 101.25", Terrarium, 101.25, 0x80, 0x65, 0x40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, g, b := pack(tc.h, tc.enc)
			if r != tc.r || g != tc.g || b != tc.b {
				t.Fatalf("pack(%g) = %#x %#x %#x, want %#x %#x %#x", tc.h, r, g, b, tc.r, tc.g, tc.b)
			}
		})
	}
	rng := rand.New(rand.NewPCG(26, 2))
	for _, enc := range []Encoding{TerrainRGB, Terrarium} {
		worst := 0.0
		for range 100000 {
			h := -500 + rng.Float64()*4000
			r, g, b := pack(h, enc)
			worst = max(worst, math.Abs(Decode(r, g, b, enc)-h))
		}
		if worst > enc.Step()/2+1e-9 {
			t.Errorf("%s: worst round trip error %g, step %g", enc, worst, enc.Step())
		}
	}
}

// plane is a height model rising to the east, without data north of
// latN.
func plane(latN float64) hillshade.Row {
	return hillshade.Heights(func(_ context.Context, lon, lat float64, _ int) (float64, bool, error) {
		if lat > latN {
			return 0, false, nil
		}
		return 100 + (lon-8.67)*5000, true, nil
	}).Row()
}

func decodeTile(t *testing.T, b []byte) (colorType byte, alpha []uint8, rgb [][3]uint8) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != TileSize || img.Bounds().Dy() != TileSize {
		t.Fatalf("size %v", img.Bounds())
	}
	for y := range TileSize {
		for x := range TileSize {
			r, g, bl, a := img.At(x, y).RGBA()
			alpha = append(alpha, uint8(a>>8))
			rgb = append(rgb, [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)})
		}
	}
	return b[25], alpha, rgb // IHDR colour type: 2 RGB, 6 RGBA
}

func TestTile(t *testing.T) {
	ctx := context.Background()
	const z, x, y = 17, 68694, 44388 // Frankfurt, lat 50.1118 to 50.1135
	for _, enc := range []Encoding{TerrainRGB, Terrarium} {
		t.Run(enc.String()+" full", func(t *testing.T) {
			b, err := New(plane(90), enc).Tile(ctx, z, x, y)
			if err != nil {
				t.Fatal(err)
			}
			ct, alpha, rgb := decodeTile(t, b)
			if ct != 2 {
				t.Errorf("colour type %d, want 2 (RGB) for a tile with data everywhere", ct)
			}
			// West and east edge pixels decode to the plane at their centres.
			lonW := -180 + (float64(x)+0.5/TileSize)/(1<<z)*360
			lonE := -180 + (float64(x)+1-0.5/TileSize)/(1<<z)*360
			for i, lon := range map[int]float64{0: lonW, TileSize - 1: lonE} {
				want := 100 + (lon-8.67)*5000
				got := Decode(rgb[i][0], rgb[i][1], rgb[i][2], enc)
				if alpha[i] != 255 || math.Abs(got-want) > enc.Step()/2+1e-6 {
					t.Errorf("pixel %d: %g (alpha %d), want %g", i, got, alpha[i], want)
				}
			}
		})
		t.Run(enc.String()+" half", func(t *testing.T) {
			b, err := New(plane(50.1127), enc).Tile(ctx, z, x, y)
			if err != nil {
				t.Fatal(err)
			}
			ct, alpha, rgb := decodeTile(t, b)
			clear := 0
			for i, a := range alpha {
				switch a {
				case 0:
					clear++
					if rgb[i] != [3]uint8{} {
						t.Fatalf("pixel %d transparent with colour %v", i, rgb[i])
					}
				case 255:
				default:
					t.Fatalf("pixel %d alpha %d", i, a)
				}
			}
			if ct != 6 || clear < TileSize*TileSize/4 || clear > TileSize*TileSize*3/4 {
				t.Errorf("colour type %d, %d transparent pixels", ct, clear)
			}
		})
	}
	b, err := New(plane(-90), TerrainRGB).Tile(ctx, z, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if _, alpha, _ := decodeTile(t, b); alpha[0] != 0 || alpha[len(alpha)-1] != 0 {
		t.Error("empty tile not transparent")
	}
	for _, tc := range [][3]int{{7, 0, 0}, {18, 0, 0}, {10, 1024, 0}, {10, 0, -1}} {
		if _, err := New(plane(90), TerrainRGB).Tile(ctx, tc[0], tc[1], tc[2]); !errors.Is(err, ErrTile) {
			t.Errorf("%v: %v", tc, err)
		}
	}
	boom := errors.New("boom")
	broken := hillshade.Heights(func(context.Context, float64, float64, int) (float64, bool, error) { return 0, false, boom }).Row()
	if _, err := New(broken, Terrarium).Tile(ctx, 15, 1, 1); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}

// BenchmarkEncode is the PNG encoding of a z 15 tile with data everywhere
// (RGB): the part of a cold tile that is not sampling.
func BenchmarkEncode(b *testing.B) {
	g, err := hillshade.SampleRows(context.Background(), plane(90), 15, 17157, 11088, TileSize)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodePNG(Encode(g, TerrainRGB)); err != nil {
			b.Fatal(err)
		}
	}
}
