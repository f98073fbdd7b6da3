package buildings_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/solarstore"
)

// rampHex is the ramp of docs/solar.md ("Map tiles"), written out here
// rather than read from buildings.SolarRamp: the tiles are judged against
// the documented stops.
var rampHex = []struct {
	kwh     float64
	r, g, b float64
}{{300, 0x44, 0x01, 0x54}, {500, 0x41, 0x44, 0x87}, {700, 0x2a, 0x78, 0x8e}, {900, 0x22, 0xa8, 0x84}, {1100, 0x7a, 0xd1, 0x51}, {1300, 0xfd, 0xe7, 0x25}}

// rampColour interpolates the documented ramp linearly in sRGB.
func rampColour(kwh float64) [3]float64 {
	if kwh <= rampHex[0].kwh {
		s := rampHex[0]
		return [3]float64{s.r, s.g, s.b}
	}
	for i := 1; i < len(rampHex); i++ {
		a, b := rampHex[i-1], rampHex[i]
		if kwh <= b.kwh {
			t := (kwh - a.kwh) / (b.kwh - a.kwh)
			return [3]float64{a.r + t*(b.r-a.r), a.g + t*(b.g-a.g), a.b + t*(b.b-a.b)}
		}
	}
	s := rampHex[len(rampHex)-1]
	return [3]float64{s.r, s.g, s.b}
}

// solarFacetRef is a roof facet of the test: its ring in tile pixels and
// its annual irradiation, kWh/m².
type solarFacetRef struct {
	ring [][2]float64
	kwh  float64
}

// TestSolarTileColours renders solar map tiles over a gable-roofed and a
// flat-roofed building (EPSG:25833) whose three facets have distinct
// stored values, at every zoom from 16 to 19 (judging at least 4 pixels of
// each facet from z17), decodes the PNG and judges
// each pixel: one whose centre lies inside one facet, more than a pixel
// from its outline, has the documented ramp's colour of that facet's
// annual irradiation (within 1 of 255, the rounding of the interpolation),
// opaque; one more than a pixel from every facet is transparent. A facet
// the store does not hold is not drawn.
func TestSolarTileColours(t *testing.T) {
	ctx := context.Background()
	site := demo.Sites[2] // be, EPSG:25833
	zone, e0, n0 := site.Origin()
	gable := demo.Building{ID: "DEBEDM00000001", X: e0 + 100, Y: n0 + 100, Z0: 40, Length: 16, Depth: 10, Height: 9, PitchDeg: 35, RotDeg: 0, Roof: demo.Gable}
	flat := demo.Building{ID: "DEBEDM00000002", X: e0 + 100, Y: n0 + 125, Z0: 40, Length: 12, Depth: 9, Height: 7, Roof: demo.Flat}
	unstored := demo.Building{ID: "DEBEDM00000003", X: e0 + 130, Y: n0 + 100, Z0: 40, Length: 8, Depth: 8, Height: 6, Roof: demo.Flat}
	data := t.TempDir()
	store := importBE(t, data, []demo.Building{gable, flat, unstored}, "")
	hits, err := store.SearchFiltered(ctx, geo.BBox{}, 0, 100, lod2store.Filter{All: true, Class: lod2store.ClassRoof})
	if err != nil {
		t.Fatal(err)
	}
	// Distinct values per facet, spread over the ramp; building 3 gets none.
	values := []int64{1_234_000, 655_500, 980_000, 420_000}
	type ref struct {
		sid    int64
		part   int
		coords [][][]float64 // WGS84
		kwh    float64
		stored bool
	}
	var refs []ref
	byBuilding := map[string]*solarstore.Building{}
	for _, h := range hits {
		var polys [][][][]float64
		if err := json.Unmarshal(h.Coords, &polys); err != nil {
			t.Fatal(err)
		}
		for part, p := range polys {
			r := ref{sid: h.SurfaceID, part: part, coords: p, stored: h.GMLID != unstored.ID}
			if r.stored {
				v := values[len(refs)%len(values)]
				r.kwh = float64(v) / 1000
				b := byBuilding[h.GMLID]
				if b == nil {
					b = &solarstore.Building{ID: h.BuildingID, GMLID: h.GMLID}
					byBuilding[h.GMLID] = b
				}
				b.Facets = append(b.Facets, solarstore.Facet{SurfaceID: h.SurfaceID, Part: part, AnnualWhM2: v, Unshaded: v})
			}
			refs = append(refs, r)
		}
	}
	if len(refs) != 4 {
		t.Fatalf("%d roof facets, want 2 of the gable roof and one of each flat roof", len(refs))
	}
	path := filepath.Join(data, "solar.sqlite")
	w, err := solarstore.Create(ctx, path, solarstore.Info{Best: solarstore.Plane{TiltDeg: 36, AzimuthDeg: 180, AnnualWhM2: 1_150_000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range byBuilding {
		if err := w.Put(ctx, *b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	sun, err := solarstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer sun.Close()
	srcs := []buildings.SolarSource{{LoD2: lod2store.Source{BL: "be", Pack: "lod2/be/2026-01-01", LoD2: store}, Solar: sun}}
	lon, lat := geo.FromUTM(zone, gable.X, gable.Y+10)
	for z := 16; z <= buildings.SolarMaxZoom; z++ {
		n := math.Exp2(float64(z))
		x := int((lon + 180) / 360 * n)
		y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
		tile, err := buildings.RenderSolarTile(ctx, srcs, z, x, y)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(tile.PNG))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds() != image.Rect(0, 0, 256, 256) {
			t.Fatalf("z%d: tile of %v", z, img.Bounds())
		}
		// The facets in this tile's pixels, by the Web Mercator formula.
		var px []solarFacetRef
		for _, r := range refs {
			var ring [][2]float64
			for _, p := range r.coords[0] {
				mx := (p[0] + 180) / 360 * n
				my := (1 - math.Asinh(math.Tan(p[1]*math.Pi/180))/math.Pi) / 2 * n
				ring = append(ring, [2]float64{(mx - float64(x)) * 256, (my - float64(y)) * 256})
			}
			kwh := r.kwh
			if !r.stored {
				kwh = math.NaN()
			}
			px = append(px, solarFacetRef{ring: ring, kwh: kwh})
		}
		judged := make([]int, len(px))
		clear := 0
		for py := 0; py < 256; py++ {
			for pxx := 0; pxx < 256; pxx++ {
				cx, cy := float64(pxx)+0.5, float64(py)+0.5
				in, near := -1, false
				for i, f := range px {
					d := edgeDist(f.ring, cx, cy)
					if d <= 1.5 {
						near = true
					}
					if inside(f.ring, cx, cy) && d > 1.5 {
						in = i
					}
				}
				c := color.NRGBAModel.Convert(img.At(pxx, py)).(color.NRGBA)
				switch {
				case in >= 0 && !math.IsNaN(px[in].kwh):
					want := rampColour(px[in].kwh)
					got := [3]float64{float64(c.R), float64(c.G), float64(c.B)}
					if c.A != 255 || math.Abs(got[0]-want[0]) > 1 || math.Abs(got[1]-want[1]) > 1 || math.Abs(got[2]-want[2]) > 1 {
						t.Fatalf("z%d pixel (%d,%d) in a facet of %.1f kWh/m²: rgba %v %d, want %v", z, pxx, py, px[in].kwh, got, c.A, want)
					}
					judged[in]++
				case in >= 0 || !near:
					if c.A != 0 {
						t.Fatalf("z%d pixel (%d,%d) outside every stored facet: alpha %d", z, pxx, py, c.A)
					}
					clear++
				}
			}
		}
		for i, n := range judged {
			if !math.IsNaN(px[i].kwh) && n < 4 && z >= 17 { // at z16 a pixel is 1.5 m: a gable face is 3 pixels deep
				t.Errorf("z%d: facet %d (%.1f kWh/m²) covers %d judged pixels", z, i, px[i].kwh, n)
			}
		}
		if clear == 0 || tile.Facets != 3 || tile.BL != "be" {
			t.Errorf("z%d: %d transparent pixels judged, %d facets drawn, BL %q", z, clear, tile.Facets, tile.BL)
		}
	}
	if _, err := buildings.RenderSolarTile(ctx, srcs, 13, 0, 0); err == nil {
		t.Error("a tile below the solar map's minimum zoom was drawn")
	}
}

// inside is the even-odd test of (x, y) against ring.
func inside(ring [][2]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a[1] > y) != (b[1] > y) && x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// edgeDist is the distance from (x, y) to the nearest edge of ring.
func edgeDist(ring [][2]float64, x, y float64) float64 {
	d := math.Inf(1)
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[j], ring[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		t := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			t = math.Max(0, math.Min(1, ((x-a[0])*dx+(y-a[1])*dy)/l))
		}
		d = math.Min(d, math.Hypot(x-a[0]-t*dx, y-a[1]-t*dy))
	}
	return d
}
