package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// TestDamagedCOGStaysLocal: a COG damaged on disk without changing its size
// (what the size check at scan time cannot see) makes the answers that need
// it a 503 data-damaged problem, while the other BL keeps answering 200, and
// /readyz and the admin health name the tile; a rescan clears the note.
func TestDamagedCOGStaysLocal(t *testing.T) {
	ctx := context.Background()
	data, src := t.TempDir(), t.TempDir()
	write := func(name string, e0, n0 float64, epsg int) string {
		g := raster.Grid{Width: 100, Height: 100, Data: make([]float32, 100*100), EPSG: epsg,
			GeoTransform: [6]float64{e0, 1, 0, n0 + 100, 0, -1}}
		for i := range g.Data {
			g.Data[i] = float32(100 + i%100)
		}
		var buf bytes.Buffer
		if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(src, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	he := write("dgm1_32_477_5551.tif", 477000, 5551000, 25832)
	be := write("dgm1_33_391_5820.tif", 391000, 5820000, 25833)
	for _, c := range []struct{ bl, path string }{{"he", he}, {"be", be}} {
		if _, err := importer.DGM(ctx, importer.Common{DataDir: data, BL: c.bl, Snapshot: "2026-07-20", LicenseID: "cc-by-4.0"},
			importer.DGMOptions{}, []string{c.path}); err != nil {
			t.Fatal(err)
		}
	}
	// Damage the Hesse COG's tile data, keeping its size and header.
	cogs, _ := filepath.Glob(filepath.Join(data, "terrain", "he", "*", "tiles", "*.tif"))
	b, _ := os.ReadFile(cogs[0])
	intact := bytes.Clone(b)
	for i := len(b) / 2; i < len(b)/2+400 && i < len(b); i++ {
		b[i] ^= 0x5a
	}
	os.WriteFile(cogs[0], b, 0o644)

	open := func(ctx context.Context, dir string, m pack.Manifest) (*terrain.Dataset, error) {
		return terrain.OpenPack(ctx, dir, m, terrain.Options{Cache: raster.NewCache(0)})
	}
	cat := catalog.New(catalog.Options{Dir: data, Raster: open})
	if _, err := cat.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken},
		Deps{Catalog: cat, Reload: func() (*catalog.View, error) { return cat.Reload(ctx) }})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, map[string]any) {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-Svc-Admin-Token", testToken)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		var m map[string]any
		json.Unmarshal(w.Body.Bytes(), &m)
		return w.Code, m
	}
	if code, m := get("/readyz"); code != 200 || m["status"] != "ready" {
		t.Errorf("before: readyz %d %v", code, m)
	}
	lonH, latH := geo.FromUTM(geo.Zone32, 477050.5, 5551050.5)
	lonB, latB := geo.FromUTM(geo.Zone33, 391050.5, 5820050.5)
	code, m := get("/v1/terrain/elevation?lat=" + num6(latH) + "&lon=" + num6(lonH))
	if code != 503 || !strings.HasSuffix(m["type"].(string), "/data-damaged") || !strings.Contains(m["detail"].(string), "he/2026-07-20") {
		t.Errorf("damaged BL: %d %v", code, m)
	}
	if code, m := get("/v1/terrain/elevation?lat=" + num6(latB) + "&lon=" + num6(lonB)); code != 200 {
		t.Errorf("the other BL: %d %v", code, m)
	}
	code, m = get("/readyz")
	if b, _ := json.Marshal(m); code != 200 || m["status"] != "degraded" || !strings.Contains(string(b), "dgm1_32_477_5551") {
		t.Errorf("readyz: %d %s", code, b)
	}
	mr := httptest.NewRecorder()
	srv.ServeHTTP(mr, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(mr.Body.String(), "\nsvc_damaged_files 1\n") || !strings.Contains(mr.Body.String(), "\nsvc_packs_skipped 0\n") {
		t.Errorf("metrics lack the quarantine gauges:\n%s", mr.Body)
	}
	_, h := get("/v1/admin/health")
	if b, _ := json.Marshal(h); h["status"] != "degraded" || !strings.Contains(string(b), "damaged file") {
		t.Errorf("admin health: %s", b)
	}
	rescan := func() {
		r := httptest.NewRequest("POST", "/v1/admin/datasets", nil)
		r.Header.Set("X-Svc-Admin-Token", testToken)
		srv.ServeHTTP(httptest.NewRecorder(), r)
		srv.WaitVerify()
	}
	// A rescan clears the notes and verifies every file again in the
	// background: the file is still damaged, so it is found again without
	// a request meeting it; once repaired, a rescan leaves the server ready.
	rescan()
	if code, m := get("/readyz"); code != 200 || m["status"] != "degraded" {
		t.Errorf("after a rescan of the still damaged file: %d %v", code, m)
	}
	os.WriteFile(cogs[0], intact, 0o644)
	rescan()
	if _, m := get("/readyz"); m["status"] != "ready" {
		t.Errorf("after the repair and a rescan: %v", m)
	}
}

func num6(v float64) string { b, _ := json.Marshal(float64(int64(v*1e6)) / 1e6); return string(b) }
