package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/store"
)

// TestDamagedSearchFileSkipsItsBL: two states cover the same box; the
// search file of one is damaged in place (same size). The federated search
// answers 200 with the other state's surfaces and a warning naming the
// skipped one, the damage is in the admin health list, and the OGC items
// carry it as a Warning header.
func TestDamagedSearchFileSkipsItsBL(t *testing.T) {
	ctx := context.Background()
	data, src := t.TempDir(), t.TempDir()
	var bs []demo.Building
	for i := range 6 {
		bs = append(bs, demo.Building{ID: fmt.Sprintf("DEHEDM%08d", i+1), X: 477020 + float64(i)*25, Y: 5551020, Z0: 100,
			Length: 10, Depth: 8, Height: 6, PitchDeg: 35})
	}
	gml := filepath.Join(src, "town.gml")
	fh, _ := os.Create(gml)
	if err := demo.WriteCityGML(fh, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	for _, bl := range []string{"he", "rp"} {
		if _, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: bl, Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0", Force: true},
			[]string{gml}); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(data, "lod2", "rp", "2026-07-20", "lod2.sqlite.search")
	st, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the header and index (checked when the pack opens); damage the
	// surface records, which are read at search time.
	raw, _ := os.ReadFile(idx)
	for i := int(st.Size()) / 2; i < len(raw); i++ {
		raw[i] = byte(i*7 + 3)
	}
	os.WriteFile(idx, raw, 0o644)
	cat := catalog.New(catalog.Options{Dir: data, Openers: map[pack.Product]catalog.Opener{pack.LoD2: store.OpenPack}})
	v, err := cat.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Packs(pack.LoD2)) != 2 {
		t.Skipf("the damaged pack did not open (%v): nothing to skip at search time", v.Problems)
	}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/v1/buildings?bbox=8.66,50.10,8.70,50.13&limit=100")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Count    int `json:"count"`
		Features []struct {
			Properties struct{ Bundesland string } `json:"properties"`
		} `json:"features"`
		Svc struct{ Warnings []string } `json:"svc"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 200 || body.Count == 0 {
		t.Fatalf("status %d, %d features", resp.StatusCode, body.Count)
	}
	for _, f := range body.Features {
		if f.Properties.Bundesland != "he" {
			t.Fatalf("a feature of %s came back", f.Properties.Bundesland)
		}
	}
	if len(body.Svc.Warnings) != 1 || !strings.Contains(body.Svc.Warnings[0], "rp") {
		t.Fatalf("warnings %q", body.Svc.Warnings)
	}
	if l := srv.damage.list(); len(l) != 1 || !strings.Contains(l[0], "lod2/rp/2026-07-20") {
		t.Errorf("damage log %q", l)
	}
	resp, err = ts.Client().Get(ts.URL + "/ogc/collections/buildings/items?bbox=8.66,50.10,8.70,50.13&limit=100")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Warning"), "rp") {
		t.Errorf("OGC items: %d, Warning %q", resp.StatusCode, resp.Header.Get("Warning"))
	}
}
