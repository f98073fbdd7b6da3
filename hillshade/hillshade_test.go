package hillshade

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
)

// rough is a synthetic relief with slopes in every direction and flat
// parts, on a grid of size+2 pixels of res metres.
func rough(size int, res float64) Grid {
	n := size + 2
	g := Grid{Size: size, H: make([]float64, n*n), ResM: res}
	rng := rand.New(rand.NewPCG(3, 9))
	for r := range n {
		for c := range n {
			x, y := float64(c)*res, float64(r)*res
			h := 200 + 40*math.Sin(x/37)*math.Cos(y/53) + 15*math.Sin((x+y)/11) + rng.Float64()
			if c > n/2 && r > n/2 {
				h = 180 // a flat square
			}
			g.H[r*n+c] = h
		}
	}
	return g
}

// TestShadesMatchGDAL writes a rough relief as GeoTIFF, shades it with
// `gdaldem hillshade -multidirectional -compute_edges` and compares the
// inner pixels with Shades: GDAL's fast inverse square root may move a
// value across a rounding boundary, so 1 is allowed.
func TestShadesMatchGDAL(t *testing.T) {
	gdaldem := testtool.Require(t, "gdaldem", "apt-get install gdal-bin")
	for _, res := range []float64{0.6, 1.19, 4.77, 38.2} {
		g := rough(254, res)
		n := g.Size + 2
		nd := -9999.0
		rg := raster.Grid{Width: n, Height: n, Data: make([]float32, n*n), EPSG: 3857, Nodata: &nd,
			GeoTransform: [6]float64{0, res, 0, 0, 0, -res}}
		for i, v := range g.H {
			rg.Data[i] = float32(v)
			g.H[i] = float64(float32(v)) // GDAL reads the float32 values
		}
		var b bytes.Buffer
		if err := raster.WriteCOG(&b, rg, raster.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		in, out := filepath.Join(dir, "dem.tif"), filepath.Join(dir, "hs.tif")
		os.WriteFile(in, b.Bytes(), 0o644)
		if o, err := exec.Command(gdaldem, "hillshade", "-q", "-multidirectional", "-compute_edges", in, out).CombinedOutput(); err != nil {
			t.Fatalf("gdaldem: %v\n%s", err, o)
		}
		src, err := raster.OpenFile(out)
		if err != nil {
			t.Fatal(err)
		}
		c, err := raster.Open(context.Background(), src, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.ReadGrid(context.Background())
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := g.Shades()
		worst, off := 0, 0
		for r := range g.Size {
			for col := range g.Size {
				w := int(want.Data[(r+1)*n+col+1])
				d := int(got[r*g.Size+col]) - w
				if d < 0 {
					d = -d
				}
				worst = max(worst, d)
				if d > 0 {
					off++
				}
			}
		}
		t.Logf("res %.2f m: worst difference %d, %d of %d pixels off by one", res, worst, off, g.Size*g.Size)
		if worst > 1 || off > g.Size*g.Size/100 {
			t.Fatalf("res %.2f m: worst difference %d, %d pixels differ", res, worst, off)
		}
	}
}

func TestSampleAndRender(t *testing.T) {
	ctx := context.Background()
	// A plane rising to the east over part of the tile: the rest is
	// transparent.
	h := func(_ context.Context, lon, lat float64, level int) (float64, bool, error) {
		if lat > 50.1125 {
			return 0, false, nil
		}
		return 100 + (lon-8.67)*5000, true, nil
	}
	g, err := Sample(ctx, h, 17, 68694, 44388, 256)
	if err != nil {
		t.Fatal(err)
	}
	img := g.Render(Shade)
	opaque, clear := 0, 0
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] == 255 {
			opaque++
		} else if img.Pix[i] == 0 {
			clear++
		}
	}
	if opaque == 0 || clear == 0 || opaque+clear != 256*256 {
		t.Fatalf("opaque %d, transparent %d", opaque, clear)
	}
	b, err := PNG(g.Render(Hypsometric))
	if err != nil {
		t.Fatal(err)
	}
	if im, err := png.Decode(bytes.NewReader(b)); err != nil || im.Bounds().Dx() != 256 {
		t.Fatalf("PNG: %v", err)
	}
	for _, tc := range [][3]int{{7, 0, 0}, {21, 0, 0}, {10, 1024, 0}, {10, 0, -1}} {
		if _, err := Sample(ctx, h, tc[0], tc[1], tc[2], 256); !errors.Is(err, ErrTile) {
			t.Errorf("%v: %v", tc, err)
		}
	}
	boom := errors.New("boom")
	if _, err := Sample(ctx, func(context.Context, float64, float64, int) (float64, bool, error) { return 0, false, boom }, 15, 1, 1, 256); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}
