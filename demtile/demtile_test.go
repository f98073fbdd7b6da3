package demtile

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
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
			// The PNG's own colour, not premultiplied: a transparent
			// pixel's colour is the filled height.
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			alpha = append(alpha, c.A)
			rgb = append(rgb, [3]uint8{c.R, c.G, c.B})
		}
	}
	return b[25], alpha, rgb // IHDR colour type: 2 RGB, 6 RGBA
}

func TestTile(t *testing.T) {
	ctx := context.Background()
	const z, x, y = 17, 68694, 44388 // Frankfurt, lat 50.1118 to 50.1135
	for _, enc := range []Encoding{TerrainRGB, Terrarium} {
		t.Run(enc.String()+" full", func(t *testing.T) {
			b, err := New(plane(90), enc, Transparent).Tile(ctx, z, x, y)
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
		for _, mark := range []NoData{Transparent, Opaque} {
			t.Run(enc.String()+" half "+mark.String(), func(t *testing.T) {
				b, err := New(plane(50.1127), enc, mark).Tile(ctx, z, x, y)
				if err != nil {
					t.Fatal(err)
				}
				ct, alpha, rgb := decodeTile(t, b)
				clear := 0
				for i, a := range alpha {
					// Filled or not, every pixel is the plane at its
					// column: the nearest valid pixel is straight south.
					lon := -180 + (float64(x)+(float64(i%TileSize)+0.5)/TileSize)/(1<<z)*360
					want := 100 + (lon-8.67)*5000
					if got := Decode(rgb[i][0], rgb[i][1], rgb[i][2], enc); math.Abs(got-want) > enc.Step()/2+1e-6 {
						t.Fatalf("pixel %d (alpha %d): %g m, want %g", i, a, got, want)
					}
					switch a {
					case 0:
						clear++
					case 255:
					default:
						t.Fatalf("pixel %d alpha %d", i, a)
					}
				}
				wantCT, lo, hi := 6, TileSize*TileSize/4, TileSize*TileSize*3/4
				if mark == Opaque {
					wantCT, lo, hi = 2, 0, 0
				}
				if int(ct) != wantCT || clear < lo || clear > hi {
					t.Errorf("colour type %d, %d transparent pixels", ct, clear)
				}
			})
		}
		t.Run(enc.String()+" empty", func(t *testing.T) {
			// No data in the tile (north of 50.1118): the z 16 parent's
			// southern half has some, filled north at each column.
			b, err := New(plane(50.111), enc, Transparent).Tile(ctx, z, x, y)
			if err != nil {
				t.Fatal(err)
			}
			ct, alpha, rgb := decodeTile(t, b)
			for i, a := range alpha {
				lon := -180 + (float64(x)+(float64(i%TileSize)+0.5)/TileSize)/(1<<z)*360
				want := 100 + (lon-8.67)*5000
				if got := Decode(rgb[i][0], rgb[i][1], rgb[i][2], enc); a != 0 || math.Abs(got-want) > enc.Step()/2+0.01 {
					t.Fatalf("pixel %d (alpha %d): %g m, want %g from the parent", i, a, got, want)
				}
			}
			if ct != 6 {
				t.Errorf("colour type %d", ct)
			}
		})
	}
	b, err := New(plane(-90), TerrainRGB, Opaque).Tile(ctx, z, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if _, alpha, rgb := decodeTile(t, b); alpha[0] != 255 || Decode(rgb[0][0], rgb[0][1], rgb[0][2], TerrainRGB) != NoDataHeightM {
		t.Errorf("tile without data anywhere: alpha %d, %v", alpha[0], rgb[0])
	}
	for _, tc := range [][3]int{{7, 0, 0}, {18, 0, 0}, {10, 1024, 0}, {10, 0, -1}} {
		if _, err := New(plane(90), TerrainRGB, Opaque).Tile(ctx, tc[0], tc[1], tc[2]); !errors.Is(err, ErrTile) {
			t.Errorf("%v: %v", tc, err)
		}
	}
	boom := errors.New("boom")
	broken := hillshade.Heights(func(context.Context, float64, float64, int) (float64, bool, error) { return 0, false, boom }).Row()
	if _, err := New(broken, Terrarium, Transparent).Tile(ctx, 15, 1, 1); !errors.Is(err, boom) {
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
		if _, err := EncodePNG(Encode(g, nil, TerrainRGB)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFillNearest fills random holes and checks each filled pixel against
// a brute-force search: its height is that of a valid pixel at the least
// distance.
func TestFillNearest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int
		holeP float64
	}{{"sparse holes", 30, 0.2}, {"mostly empty", 30, 0.97}, {"one valid", 12, 1}, {"none missing", 8, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			n := tc.size + 2
			g := hillshade.Grid{Size: tc.size, H: make([]float64, n*n)}
			for i := range g.H {
				g.H[i] = float64(i)
				if rng.Float64() < tc.holeP {
					g.H[i] = math.NaN()
				}
			}
			if tc.holeP == 1 {
				g.H[n*n/3] = 7
			}
			orig := slices.Clone(g.H)
			noData, ok := FillNearest(g)
			if !ok {
				t.Fatal("no valid pixel found")
			}
			if noData == nil {
				noData = make([]bool, len(orig)) // nil: nothing missing
			}
			for i, h := range orig {
				if math.IsNaN(h) != noData[i] {
					t.Fatalf("pixel %d: mask %v for %g", i, noData[i], h)
				}
				if !noData[i] {
					if g.H[i] != h {
						t.Fatalf("valid pixel %d changed", i)
					}
					continue
				}
				best, heights := math.MaxInt, map[float64]bool{}
				for j, v := range orig {
					if math.IsNaN(v) {
						continue
					}
					dr, dc := i/n-j/n, i%n-j%n
					switch d := dr*dr + dc*dc; {
					case d < best:
						best, heights = d, map[float64]bool{v: true}
					case d == best:
						heights[v] = true
					}
				}
				if !heights[g.H[i]] {
					t.Fatalf("pixel %d,%d: filled %g, nearest (d²=%d) are %v", i/n, i%n, g.H[i], best, heights)
				}
			}
		})
	}
	g := hillshade.Grid{Size: 2, H: []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}}
	if _, ok := FillNearest(g); ok {
		t.Error("all NaN: ok")
	}
}
