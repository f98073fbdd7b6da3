package server

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/importer"
	svcfixture "github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
)

// TestSolarTilesFollowPublication: a server whose tiles were asked for
// before the solar pack was published answers with the solar values once
// it is (the caches key on the published solar snapshots): over the real
// NRW sample, before it the z16 vector tile's roofs carry no annual_kwh_m2,
// /v1/solar/tiles.json is 404 and the z16 solar tile is transparent; after
// publishing and a catalog reload every roof carries annual_kwh_m2,
// tiles.json answers, the solar tile has opaque pixels, and both tiles
// have new ETags.
func TestSolarTilesFollowPublication(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	if _, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0"},
		[]string{testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")}); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack, Solar: solarstore.OpenPack})
	defer cat.Close()
	v, err := cat.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string, []byte) {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Code, w.Header().Get("ETag"), w.Body.Bytes()
	}
	const lon, lat, z = 5.8739, 51.0424, 16
	n := math.Exp2(z)
	x := int((lon + 180) / 360 * n)
	y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
	mvtPath, pngPath := fmt.Sprintf("/v1/buildings/tiles/%d/%d/%d.mvt", z, x, y), fmt.Sprintf("/v1/solar/%d/%d/%d.png", z, x, y)
	// roofs counts the roof features and those with annual_kwh_m2.
	roofs := func(body []byte) (all, solar int) {
		layers, err := mvt.Decode(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range layers {
			if l.Name != "roofs" {
				continue
			}
			for _, f := range l.Features {
				all++
				if _, ok := f.Props["annual_kwh_m2"]; ok {
					solar++
				}
			}
		}
		return all, solar
	}
	opaque := func(body []byte) int {
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for py := 0; py < 256; py++ {
			for px := 0; px < 256; px++ {
				if _, _, _, a := img.At(px, py).RGBA(); a == 0xffff {
					k++
				}
			}
		}
		return k
	}
	code, mvtTag, body := get(mvtPath)
	all, solar := roofs(body)
	if code != 200 || all == 0 || solar != 0 {
		t.Fatalf("before: %s %d, %d roofs, %d with solar values", mvtPath, code, all, solar)
	}
	if code, _, _ := get("/v1/solar/tiles.json"); code != 404 {
		t.Errorf("before: tiles.json %d", code)
	}
	code, pngTag, body := get(pngPath)
	if code != 200 || opaque(body) != 0 {
		t.Fatalf("before: %s %d, %d opaque pixels", pngPath, code, opaque(body))
	}

	lp, _ := v.Pack(pack.LoD2, "nrw")
	if _, err := svcfixture.SolarPack(ctx, data, "2026-07-21", lp.Manifest, lp.LoD2, 1_150_000, func(f svcfixture.SolarFacet) int64 {
		return 900_000
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	code, tag, body := get(mvtPath)
	all2, solar2 := roofs(body)
	if code != 200 || all2 != all || solar2 != all || tag == mvtTag {
		t.Errorf("after: %s %d, %d roofs (%d before), %d with solar values, ETag %s (before %s)", mvtPath, code, all2, all, solar2, tag, mvtTag)
	}
	if code, _, b := get("/v1/solar/tiles.json"); code != 200 {
		t.Errorf("after: tiles.json %d %s", code, b)
	}
	code, tag, body = get(pngPath)
	if k := opaque(body); code != 200 || k < 1000 || tag == pngTag {
		t.Errorf("after: %s %d, %d opaque pixels, ETag %s (before %s)", pngPath, code, k, tag, pngTag)
	}
}
