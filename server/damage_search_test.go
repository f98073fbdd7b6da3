package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// TestDamagedSearchFileSkipsItsBL: two states cover the same box; the
// search file of one is damaged in place (same size). The federated search
// answers 200 with the other state's surfaces and a warning naming the
// skipped one, the damage is in the admin health list, and the OGC items
// carry it as a Warning header.
func TestDamagedSearchFileSkipsItsBL(t *testing.T) {
	ctx := context.Background()
	data := twoStatesLoD2(t)
	idx := filepath.Join(data, "lod2", "rp", "2026-07-20", "lod2.sqlite.search")
	st, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the header and index (checked when the pack opens); damage the
	// surface records, which are read at search time.
	garble(t, idx, st.Size()/2)
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
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
	resp, err = ts.Client().Get(ts.URL + "/ogc/collections/surfaces/items?bbox=8.66,50.10,8.70,50.13&limit=100")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Warning"), "rp") {
		t.Errorf("OGC items: %d, Warning %q", resp.StatusCode, resp.Header.Get("Warning"))
	}
}

// twoStatesLoD2 imports the same six buildings as he and rp: two states
// that cover the same box.
func twoStatesLoD2(t *testing.T) string {
	t.Helper()
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
		if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: bl, Snapshot: "2026-07-20",
			LicenseID: "dl-de-by-2.0", Force: true}, []string{gml}); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// garble overwrites path from byte from on, keeping its size.
func garble(t *testing.T, path string, from int64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := int(from); i < len(raw); i++ {
		raw[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedSpatiaLiteStaysLocal: the SpatiaLite file of one state is
// damaged in place (same size). Opening the pack finds it malformed, so
// that state's LoD2 is left unpublished while the other keeps answering;
// /readyz, the admin health and the svc_packs_skipped gauge name it.
// SQLite's own integrity check is the judge that the damage is real and
// the other state's file intact.
func TestDamagedSpatiaLiteStaysLocal(t *testing.T) {
	ctx := context.Background()
	data := twoStatesLoD2(t)
	db := filepath.Join(data, "lod2", "rp", "2026-07-20", "lod2.sqlite")
	st, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	garble(t, db, st.Size()/4)
	// SQLite judges the damage where it is installed; without it the rest
	// of the test still runs (CI must have it).
	if sqlite, err := exec.LookPath("sqlite3"); err != nil && testtool.CI() {
		t.Fatal("CI=true requires sqlite3 (apt-get install sqlite3)")
	} else if err != nil {
		t.Log("sqlite3 not found (apt-get install sqlite3): the damage is not judged by SQLite's integrity check")
	} else {
		for bl, wantOK := range map[string]bool{"he": true, "rp": false} {
			out, _ := exec.Command(sqlite, filepath.Join(data, "lod2", bl, "2026-07-20", "lod2.sqlite"), "PRAGMA integrity_check").CombinedOutput()
			if ok := strings.TrimSpace(string(out)) == "ok"; ok != wantOK {
				t.Fatalf("sqlite3 integrity_check of %s: %s", bl, out)
			}
		}
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	if _, err := cat.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	srv.VerifyInBackground(ctx)
	srv.WaitVerify()
	get := func(path string) (int, string) {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-Svc-Admin-Token", testToken)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	code, body := get("/v1/buildings?bbox=8.66,50.10,8.70,50.13&limit=100")
	if code != 200 || strings.Contains(body, `"bundesland":"rp"`) || !strings.Contains(body, `"bundesland":"he"`) {
		t.Errorf("search: %d %.300s", code, body)
	}
	if code, body := get("/v1/buildings/DEHEDM00000001"); code != 200 {
		t.Errorf("building of the intact state: %d %.300s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"degraded"`) || !strings.Contains(body, "lod2/rp/2026-07-20") ||
		strings.Contains(body, data) {
		t.Errorf("readyz: %d %s", code, body)
	}
	if _, body := get("/v1/admin/health"); !strings.Contains(body, `"skipped lod2/rp/2026-07-20","status":"fail"`) ||
		!strings.Contains(body, `"pack lod2/he/2026-07-20","status":"ok"`) {
		t.Errorf("admin health: %s", body)
	}
	if _, body := get("/metrics"); !strings.Contains(body, "\nsvc_packs_skipped 1\n") {
		t.Errorf("metrics: no svc_packs_skipped 1")
	}
}

// TestOGCDamagedCoordinatesAre503: the stored coordinates of one state's
// surfaces are damaged in place (same lengths, so the records still parse).
// Asked for in a projected CRS, whose conversion must read them, the OGC
// items and the single feature of that state answer 503 data-damaged (not a
// 200 with empty coordinates), the damage log and /readyz name the pack,
// and the other state keeps answering 200 in the same CRS.
func TestOGCDamagedCoordinatesAre503(t *testing.T) {
	ctx := context.Background()
	data := twoStatesLoD2(t)
	idx := filepath.Join(data, "lod2", "rp", "2026-07-20", "lod2.sqlite.search")
	raw, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := 0; i+5 < len(raw); i++ {
		if string(raw[i:i+4]) == "[[[[" && raw[i+4] >= '0' && raw[i+4] <= '9' {
			copy(raw[i:], "{{{{")
			n++
		}
	}
	if n == 0 {
		t.Fatal("no stored coordinates found in the search file")
	}
	if err := os.WriteFile(idx, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	if _, err := cat.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-Svc-Admin-Token", testToken)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	const utm = "crs=http://www.opengis.net/def/crs/EPSG/0/25832"
	for _, path := range []string{"/ogc/collections/surfaces-rp/items?" + utm, "/ogc/collections/roofs/items?limit=100&" + utm,
		"/ogc/collections/surfaces/items/rp.1?" + utm} {
		code, body := get(path)
		var p struct{ Type, Detail string }
		if err := json.Unmarshal([]byte(body), &p); code != 503 || err != nil || !strings.HasSuffix(p.Type, "/data-damaged") {
			t.Errorf("%s: %d %.300s", path, code, body)
		}
	}
	if l := srv.damage.list(); len(l) != 1 || !strings.HasPrefix(l[0], "lod2/rp/2026-07-20: ") {
		t.Errorf("damage log %q", l)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"degraded"`) || !strings.Contains(body, "lod2/rp/2026-07-20") {
		t.Errorf("readyz: %d %s", code, body)
	}
	code, body := get("/ogc/collections/surfaces-he/items?" + utm)
	var fc struct {
		Features []struct {
			Geometry struct{ Coordinates [][][][]float64 }
		}
	}
	if err := json.Unmarshal([]byte(body), &fc); code != 200 || err != nil || len(fc.Features) == 0 || len(fc.Features[0].Geometry.Coordinates) == 0 {
		t.Errorf("the intact state: %d %.300s", code, body)
	}
}
