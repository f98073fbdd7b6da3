package importer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// deckUTM is the test bridge deck in EPSG:25832: minE, minN, maxE, maxN.
var deckUTM = [4]float64{477005, 5551005, 477010, 5551015}

// deckGeoJSON returns the deck as a FeatureCollection, in WGS84 or UTM.
func deckGeoJSON(wgs84 bool) string {
	d := deckUTM
	ring := ""
	for i, p := range [][2]float64{{d[0], d[1]}, {d[2], d[1]}, {d[2], d[3]}, {d[0], d[3]}, {d[0], d[1]}} {
		x, y := p[0], p[1]
		if wgs84 {
			x, y = geo.FromUTM(32, x, y)
		}
		if i > 0 {
			ring += ","
		}
		ring += fmt.Sprintf("[%.10f,%.10f]", x, y)
	}
	return `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[` + ring + `]]}}]}`
}

func TestParseBridgeMask(t *testing.T) {
	t.Parallel()
	seed, err := os.ReadFile("testdata/bridges.geojson")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, doc string
		polys     int
	}{
		{"wgs84", deckGeoJSON(true), 1},
		{"utm", deckGeoJSON(false), 1},
		{"mixed file", string(seed), 2},
		{"bare polygon", `{"type":"Polygon","coordinates":[[[1,1],[2,1],[2,2]]]}`, 1},
		{"not json", `{"type":`, 0},
		{"no polygons", `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]}}]}`, 0},
		{"short position", `{"type":"Polygon","coordinates":[[[1]]]}`, 0},
		{"bad coordinates", `{"type":"Polygon","coordinates":"x"}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseBridgeMask([]byte(tc.doc), 32)
			if tc.polys == 0 {
				if !errors.Is(err, ErrOptions) {
					t.Fatalf("error %v, want ErrOptions", err)
				}
				return
			}
			if err != nil || len(m.polys) != tc.polys {
				t.Fatalf("%v, %+v", err, m)
			}
		})
	}
	m, _ := parseBridgeMask([]byte(deckGeoJSON(true)), 32)
	if b := m.polys[0].bbox; math.Abs(b[0]-(deckUTM[0]-BridgeBufferM)) > 1e-3 || math.Abs(b[3]-(deckUTM[3]+BridgeBufferM)) > 1e-3 {
		t.Errorf("WGS84 deck in UTM: bbox %v, want %v widened by %g m", b, deckUTM, BridgeBufferM)
	}
}

// TestBridgeMaskApply masks a 20 m grid: pixels on the deck and within
// 1.0 m of it become NoData, pixels 1.5 m off it keep their value.
func TestBridgeMaskApply(t *testing.T) {
	t.Parallel()
	m, err := parseBridgeMask([]byte(deckGeoJSON(false)), 32)
	if err != nil {
		t.Fatal(err)
	}
	g := raster.Grid{Width: 20, Height: 20, Data: make([]float32, 400), GeoTransform: [6]float64{477000, 1, 0, 5551020, 0, -1}}
	for i := range g.Data {
		g.Data[i] = 10
	}
	n := m.apply(&g)
	at := func(x, y float64) float32 { return g.Data[int(5551020-y)*20+int(x-477000)] }
	for _, tc := range []struct {
		name   string
		x, y   float64
		masked bool
	}{
		{"deck centre", 477007.5, 5551010.5, true},
		{"0.5 m east", 477010.5, 5551010.5, true},
		{"1.5 m east", 477011.5, 5551010.5, false},
		{"1.5 m west", 477003.5, 5551010.5, false},
		{"0.5 m north", 477007.5, 5551015.5, true},
		{"1.5 m north", 477007.5, 5551016.5, false},
		{"corner diagonal 0.71 m", 477010.5, 5551015.5, true},
		{"corner diagonal 2.1 m", 477011.5, 5551016.5, false},
	} {
		if got := at(tc.x, tc.y) == terrain.Nodata; got != tc.masked {
			t.Errorf("%s: masked %v, want %v", tc.name, got, tc.masked)
		}
	}
	// 5x10 deck pixels plus the ring of pixels whose centres lie 0.5 m
	// (0.71 m at the corners) outside it.
	if want := 7 * 12; n != want {
		t.Errorf("%d pixels masked, want %d", n, want)
	}
}

// TestVegetationBridgeMask imports a CDSM with a WGS84 bridge mask: the
// manifest records it, canopy on the deck is NoData (404) and 1.5 m beside
// it is not; mirror mode refuses a mask.
func TestVegetationBridgeMask(t *testing.T) {
	t.Parallel()
	src, data := t.TempDir(), t.TempDir()
	cdsm := filepath.Join(src, "cdsm_1.xyz")
	writeFile(t, cdsm, xyzTile(477000, 5551000))
	mask := filepath.Join(src, "bridges.geojson")
	writeFile(t, mask, []byte(deckGeoJSON(true)))
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	m, err := Vegetation(context.Background(), c, VegetationOptions{CDSM: []string{cdsm}, BridgeMask: mask})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Vegetation.BridgeMask {
		t.Error("manifest does not record the bridge mask")
	}
	ds, err := terrain.OpenPack(context.Background(), filepath.Join(data, "veg", "he", "2026-07-20"), m, terrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, tc := range []struct {
		name string
		x, y float64
		err  error
	}{{"on the deck", 477007.5, 5551010.5, terrain.ErrNoData}, {"1.5 m beside", 477011.5, 5551010.5, nil}} {
		lon, lat := geo.FromUTM(32, tc.x, tc.y)
		h, err := terrain.Canopy(context.Background(), []*terrain.Dataset{ds}, lon, lat, false)
		if !errors.Is(err, tc.err) || (err == nil && math.Abs(h.Value-11.010) > 1e-3) {
			t.Errorf("%s: %+v, %v; want error %v", tc.name, h.Value, err, tc.err)
		}
	}
	tif := filepath.Join(data, string(pack.Vegetation), "he", "2026-07-20", "cdsm", "cdsm_1.tif")
	if _, err := Vegetation(context.Background(), Common{DataDir: data, BL: "he", Snapshot: "2026-07-21", LicenseID: "dl-de-by-2.0"},
		VegetationOptions{Mode: ModeMirror, CDSM: []string{tif}, BridgeMask: mask}); !errors.Is(err, ErrOptions) {
		t.Errorf("mirror with a mask: %v, want ErrOptions", err)
	}
}

// FuzzParseBridgeMask feeds arbitrary bytes to the GeoJSON mask parser: no
// panic, and a mask is either an error or holds polygons.
func FuzzParseBridgeMask(f *testing.F) {
	seed, err := os.ReadFile("testdata/bridges.geojson")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(deckGeoJSON(true)))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseBridgeMask(b, 32)
		if err == nil && len(m.polys) == 0 {
			t.Fatal("mask without polygons accepted")
		}
	})
}
