package terrain

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// tileAround returns a fixture tile of size metres whose centre is near
// the UTM position of lon, lat in zone z.
func tileAround(name string, z geo.Zone, lon, lat float64, size int, f func(e, n float64) float64) fixtureTile {
	e, n := geo.ToUTM(z, lon, lat)
	return fixtureTile{name: name, e0: math.Floor(e) - float64(size/2), n0: math.Floor(n) - float64(size/2), size: size, f: f}
}

func TestElevation(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	lake := func(e, n float64) float64 {
		if math.Mod(e, 100) < 10 { // water stripes: NoData
			return math.NaN()
		}
		return smooth(e, n)
	}
	he := makePack(t, data, pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "a", e0: 477000, n0: 5551000, size: 200, f: lake}, {name: "b", e0: 477200, n0: 5551000, size: 200, f: lake}},
	}, nil)
	ds := []*Dataset{he}
	at := func(e, n float64) (float64, float64) { return geo.FromUTM(geo.Zone32, e, n) }
	tests := []struct {
		name    string
		e, n    float64
		want    float64
		tile    string
		wantErr error
	}{
		{"inside", 477050.3, 5551100.7, smooth(477050.5, 5551100.5), "he/2026-07-20/a", nil},
		{"second tile", 477250.5, 5551150.5, smooth(477250.5, 5551150.5), "he/2026-07-20/b", nil},
		{"west edge moves inward", 477010.0, 5551000.2, smooth(477010.5, 5551000.5), "he/2026-07-20/a", nil},
		{"east edge of last tile", 477399.9, 5551199.95, smooth(477399.5, 5551199.5), "he/2026-07-20/b", nil},
		{"water is NoData", 477105.5, 5551050.5, 0, "", ErrNoData},
		{"outside", 478500, 5551100, 0, "", ErrOutside},
		{"just outside the edge", 477400.2, 5551100, 0, "", ErrOutside},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lon, lat := at(tc.e, tc.n)
			h, err := Elevation(context.Background(), ds, lon, lat)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if math.Abs(h.Value-tc.want) > 1e-3 || h.TileID != tc.tile || h.Dataset != he {
				t.Errorf("got %.4f from %s, want %.4f from %s", h.Value, h.TileID, tc.want, tc.tile)
			}
		})
	}
}

func TestInward(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ v, lo, hi, want float64 }{
		{0.1, 0, 1000, 0.6}, {999.9, 0, 1000, 999.4}, {500, 0, 1000, 500}, {0.6, 0, 1000, 0.6}, {5, 4, 5, 4.5},
	} {
		if got := inward(tc.v, tc.lo, tc.hi); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("inward(%g, %g, %g) = %g, want %g", tc.v, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestCrossZoneAndBL puts Bavaria (UTM32N) west and Saxony (UTM33N) east
// of the 12 degree meridian, with one point both cover.
func TestCrossZoneAndBL(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	const lat = 50.30
	holeAt := func(z geo.Zone, lon float64) func(e, n float64) float64 {
		he, hn := geo.ToUTM(z, lon, lat)
		return func(e, n float64) float64 {
			if math.Abs(e-he) < 3 && math.Abs(n-hn) < 3 {
				return math.NaN()
			}
			return smooth(e, n) + float64(z) // zones give different values
		}
	}
	by := makePack(t, data, pack.Terrain, "by", "2026-07-16", 25832, map[string][]fixtureTile{
		LayerDGM: {tileAround("by1", geo.Zone32, 11.995, lat, 1200, holeAt(geo.Zone32, 11.998))}}, nil)
	sn := makePack(t, data, pack.Terrain, "sn", "2026-07-16", 25833, map[string][]fixtureTile{
		LayerDGM: {tileAround("sn1", geo.Zone33, 12.005, lat, 1200, holeAt(geo.Zone33, 12.0))}}, nil)
	ds := []*Dataset{by, sn}
	for _, tc := range []struct {
		name   string
		lon    float64
		wantBL string
		zone   geo.Zone
	}{
		{"west of 12E in UTM32N", 11.99, "by", geo.Zone32},
		{"east of 12E in UTM33N", 12.01, "sn", geo.Zone33},
		{"overlap: first BL by code wins", 12.0, "by", geo.Zone32},
		{"overlap: NoData in by, sn answers", 11.998, "sn", geo.Zone33},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Elevation(context.Background(), ds, tc.lon, lat)
			if err != nil {
				t.Fatal(err)
			}
			e, n := geo.ToUTM(tc.zone, tc.lon, lat)
			want := smooth(math.Floor(e)+0.5, math.Floor(n)+0.5) + float64(tc.zone)
			if h.Dataset.BL() != tc.wantBL || math.Abs(h.Value-want) > 1e-3 {
				t.Errorf("got %s %.3f, want %s %.3f", h.Dataset.BL(), h.Value, tc.wantBL, want)
			}
		})
	}
}

func TestProfileCorruptTile(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	d := makePack(t, data, pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "good", e0: 477000, n0: 5551000, size: 100, f: smooth},
			{name: "bad", e0: 477100, n0: 5551000, size: 100, rawCorrupt: true}},
	}, nil)
	a := geo.LonLat{}
	a.Lon, a.Lat = geo.FromUTM(geo.Zone32, 477010, 5551050)
	b := geo.LonLat{}
	b.Lon, b.Lat = geo.FromUTM(geo.Zone32, 477250, 5551050) // the last 50 m lie outside
	p, err := ProfileAlong(context.Background(), []*Dataset{d}, []geo.LonLat{a, b}, 25, Nearest)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Partial || len(p.FailedTileIDs) != 1 || p.FailedTileIDs[0] != "he/2026-07-20/bad" {
		t.Fatalf("partial %v failed %v", p.Partial, p.FailedTileIDs)
	}
	var ok, failed, outside int
	for _, s := range p.Samples {
		switch e, _ := geo.ToUTM(geo.Zone32, s.Lon, s.Lat); {
		case s.OK:
			ok++
			if e > 477100 {
				t.Errorf("sample at e=%.1f has a value", e)
			}
		case s.Dataset != nil:
			failed++
		default:
			outside++
		}
	}
	if ok == 0 || failed == 0 || outside == 0 {
		t.Errorf("ok %d failed %d outside %d, want all > 0", ok, failed, outside)
	}
	if math.Abs(p.TotalM-240) > 0.5 {
		t.Errorf("total %.2f m, want 240", p.TotalM)
	}
	// All samples outside: ErrOutside.
	c := geo.LonLat{Lon: 9, Lat: 48}
	if _, err := ProfileAlong(context.Background(), []*Dataset{d}, []geo.LonLat{c, {Lon: 9.01, Lat: 48}}, 10, Nearest); !errors.Is(err, ErrOutside) {
		t.Errorf("all outside: %v", err)
	}
}

// TestPassThroughUnavailable reads a pass-through tile from a server that
// fails: the error wraps raster.ErrUnavailable (the API's 502), and the
// tile is retried once the server recovers.
func TestPassThroughUnavailable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := raster.WriteCOG(&buf, makeGrid(25832, 477000, 5551000, 100, smooth), raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	cog := buf.Bytes()
	var up atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		http.ServeContent(w, r, "t.tif", time.Time{}, bytes.NewReader(cog))
	}))
	defer srv.Close()
	data := t.TempDir()
	d := makePack(t, data, pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "remote", e0: 477000, n0: 5551000, size: 100, url: srv.URL + "/t.tif"}}}, nil)
	lon, lat := geo.FromUTM(geo.Zone32, 477050.5, 5551050.5)
	_, err := Elevation(context.Background(), []*Dataset{d}, lon, lat)
	var te *TileError
	if !errors.Is(err, raster.ErrUnavailable) || !errors.As(err, &te) || te.TileID != "he/2026-07-20/remote" {
		t.Fatalf("down: %v", err)
	}
	if err := d.Probe(context.Background()); !errors.Is(err, raster.ErrUnavailable) {
		t.Errorf("probe while down: %v", err)
	}
	up.Store(true)
	// A failed open answers for the tile for failMemory; then the next
	// request opens it again, without a restart.
	if _, err := Elevation(context.Background(), []*Dataset{d}, lon, lat); !errors.Is(err, raster.ErrUnavailable) {
		t.Errorf("within failMemory: %v", err)
	}
	time.Sleep(failMemory)
	h, err := Elevation(context.Background(), []*Dataset{d}, lon, lat)
	if err != nil || math.Abs(h.Value-smooth(477050.5, 5551050.5)) > 1e-3 {
		t.Fatalf("up: %v %v", h.Value, err)
	}
}

func TestCanopy(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	tree := func(e, n float64) float64 {
		if e < 477050 {
			return math.NaN()
		}
		if e < 477060 {
			return 1.5 // below the 2 m threshold
		}
		return 20
	}
	base := func(e, n float64) float64 {
		if n < 5551050 {
			return math.NaN()
		}
		return 5
	}
	d := makePack(t, data, pack.Vegetation, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerCDSM: {{name: "c", e0: 477000, n0: 5551000, size: 100, f: tree}},
		LayerTDSM: {{name: "t", e0: 477000, n0: 5551000, size: 100, f: base}},
	}, nil)
	five := 5.0
	for _, tc := range []struct {
		name    string
		e, n    float64
		trunk   bool
		height  float64
		base    *float64
		wantErr error
	}{
		{"tree with crown base", 477080, 5551080, true, 20, &five, nil},
		{"trunk=false", 477080, 5551080, false, 20, nil, nil},
		{"no TDSM value", 477080, 5551020, true, 20, nil, nil},
		{"NoData", 477020, 5551080, true, 0, nil, ErrNoData},
		{"below 2 m", 477055, 5551080, true, 0, nil, ErrNoData},
		{"outside", 477200, 5551080, true, 0, nil, ErrOutside},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lon, lat := geo.FromUTM(geo.Zone32, tc.e, tc.n)
			h, err := Canopy(context.Background(), []*Dataset{d}, lon, lat, tc.trunk)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if h.Value != tc.height || (h.CrownBaseM == nil) != (tc.base == nil) || (tc.base != nil && *h.CrownBaseM != *tc.base) {
				t.Errorf("got %v base %v, want %v base %v", h.Value, h.CrownBaseM, tc.height, tc.base)
			}
			if h.TileID != "he/2026-07-20/c" {
				t.Errorf("tile %s", h.TileID)
			}
		})
	}
}

func TestTransmissivity(t *testing.T) {
	t.Parallel()
	five := 5.0
	on, off := Transmissivity(20, &five) // crown depth 15 m
	// 100*exp(-0.5*0.5*15) = 2.35, 100*exp(-0.5*0.2*15) = 22.31,
	// 100*exp(-0.5*0.15*15) = 32.47, 100*exp(-0.5*0.05*15) = 68.73.
	if on != [2]float64{2.4, 22.3} || off != [2]float64{32.5, 68.7} {
		t.Errorf("on %v off %v", on, off)
	}
	prevOn := 101.0
	for _, h := range []float64{2, 5, 10, 20, 40} {
		on, off := Transmissivity(h, nil)
		if !(on[0] <= on[1] && off[0] <= off[1] && on[1] < off[1] && on[0] < off[0]) {
			t.Errorf("h=%g: on %v off %v not ordered", h, on, off)
		}
		if on[1] >= prevOn || on[0] < 0 || off[1] > 100 {
			t.Errorf("h=%g: on %v not decreasing with height or out of 0..100", h, on)
		}
		prevOn = on[1]
	}
	full := 30.0
	if on, off := Transmissivity(20, &full); on != [2]float64{100, 100} || off != [2]float64{100, 100} {
		t.Errorf("crown base above canopy: %v %v", on, off)
	}
}
