package cmd

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/roofsolar"
)

// TestBuildSolarDefaultClimate: on the real NRW sample with a DGM, `svc
// build solar` without --irradiance computes every building under the
// built-in default climate of its cell; the manifest names the default
// climate (no file, format cmsaf-monthly-means, its identity); a server
// without --irradiance then answers every building "precomputed" with the
// values of its on-demand answer (within the store's whole Wh/m²), and a
// server with a climate file computes on demand. The roofs of the building
// vector tiles (read by GDAL's MVT driver) carry share_of_best and class
// of the facet's own cell's best plane, the one the route answers; the
// solar map tiles' legend gives no kWh/m² per class.
func TestBuildSolarDefaultClimate(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	data, ids := nrwSample(t)
	sampleDGM(t, data)
	want := solarAnswers(t, serveData(t, data), ids)

	out, err := runCLI(t, "build", "solar", "--data", data, "--bl", "nrw", "--workers", "2")
	if err != nil {
		t.Fatalf("build solar without --irradiance: %v\n%s", err, out)
	}
	if !strings.Contains(out, fmt.Sprintf("built solar/nrw/2026-07-20: %d buildings", len(ids))) {
		t.Fatalf("build solar said:\n%s", out)
	}
	t.Log(strings.TrimSpace(out))
	dir := filepath.Join(data, "solar", "nrw", "2026-07-20")
	m, err := pack.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Solar; s == nil || s.ClimateFile != "" || s.ClimateSHA256 != roofsolar.DefaultSHA256() ||
		s.ClimateFormat != "cmsaf-monthly-means" || s.Buildings != int64(len(ids)) {
		t.Fatalf("manifest solar part %+v", m.Solar)
	}

	base := serveData(t, data)
	got := solarAnswers(t, base, ids)
	bests := map[int64]bool{} // the best planes the route answers, Wh/m² rounded to 10
	for _, id := range ids {
		g, w := got[id], want[id]
		if g["computed"] != "precomputed" || w["computed"] != "on_demand" {
			t.Fatalf("%s: computed %v after the build, %v before", id, g["computed"], w["computed"])
		}
		delete(g, "computed")
		delete(w, "computed")
		if d := sameAnswer(id, g, w); d != "" {
			t.Errorf("precomputed answer differs from the on-demand one: %s", d)
		}
		bests[int64(math.Round(g["best_plane"].(map[string]any)["annual_kwh_m2"].(float64)*100))] = true
	}

	// The map tiles' legend: no single best plane, so no kWh/m² per class
	// (a 0 kWh/m² best plane would make every class start at 0).
	_, tj := solarGet(t, base+"/v1/solar/tiles.json", nil)
	var leg struct {
		Legend map[string]json.RawMessage `json:"solar_legend"`
	}
	if err := json.Unmarshal(tj, &leg); err != nil || leg.Legend == nil {
		t.Fatalf("tiles.json: %v %.300s", err, tj)
	}
	if _, ok := leg.Legend["best_plane"]; ok || strings.Contains(string(leg.Legend["classes"]), "min_kwh_m2") {
		t.Errorf("legend of a default-climate store names one best plane: %s %s", leg.Legend["best_plane"], leg.Legend["classes"])
	}

	tmy := tmyCSV(t, solarSampleSite(t, base, ids))
	if c := solarAnswers(t, serveData(t, data, "--irradiance", tmy), ids[:1])[ids[0]]["computed"]; c != "on_demand" {
		t.Errorf("a server with a climate file over a default-climate store answers %v, want on_demand", c)
	}

	// The store's facets and their cells' best planes, as GDAL reads them.
	csvPath := filepath.Join(t.TempDir(), "facets.csv")
	toolOut(t, ogr2ogr, "-f", "CSV", csvPath, filepath.Join(dir, m.Solar.File), "-sql", "SELECT surface_id, annual_wh_m2, best_wh_m2 FROM facets")
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("facets.csv: %v, %d rows", err, len(rows))
	}
	type stored struct{ annual, best float64 }
	bySurface := map[float64][]stored{}
	for _, r := range rows[1:] {
		sid, _ := strconv.ParseFloat(r[0], 64)
		a, _ := strconv.ParseFloat(r[1], 64)
		b, err := strconv.ParseFloat(r[2], 64)
		if err != nil || !bests[int64(math.Round(b/10))] {
			t.Fatalf("surface %v: best_wh_m2 %q is none of the route's best planes %v (x10 Wh/m²)", sid, r[2], bests)
		}
		bySurface[sid] = append(bySurface[sid], stored{a, b})
	}
	checkRoofShares(t, ogr2ogr, base, 5.8739, 51.0424, func(sid, annual, share float64, class string) string {
		for _, s := range bySurface[sid] {
			if annual != math.Round(s.annual/10)/100 {
				continue
			}
			wantShare := math.Round(s.annual/s.best*1000) / 1000
			if share != wantShare || class != roofsolar.Class(wantShare) {
				return fmt.Sprintf("share %v class %q, want %v %q of its cell's best plane %v Wh/m²", share, class, wantShare, roofsolar.Class(wantShare), s.best)
			}
			return ""
		}
		return fmt.Sprintf("annual_kwh_m2 %v is none of its stored facets' %v", annual, bySurface[sid])
	})
}

// checkRoofShares reads the roofs layer of the z16 building vector tile
// at lon, lat with GDAL and calls check for every roof feature with solar
// values; a non-empty answer is an error. Features without them fail.
func checkRoofShares(t *testing.T, ogr2ogr, base string, lon, lat float64, check func(sid, annual, share float64, class string) string) {
	t.Helper()
	const z = 16
	n := math.Exp2(z)
	x := int((lon + 180) / 360 * n)
	y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
	resp, body := solarGet(t, fmt.Sprintf("%s/v1/buildings/tiles/%d/%d/%d.mvt", base, z, x, y), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %.200s", resp.StatusCode, body)
	}
	dir := t.TempDir()
	tile, out := filepath.Join(dir, "roofs.mvt"), filepath.Join(dir, "roofs.json")
	if err := os.WriteFile(tile, body, 0o644); err != nil {
		t.Fatal(err)
	}
	toolOut(t, ogr2ogr, "-f", "GeoJSON", out, tile, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), "roofs")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	if len(fc.Features) < 10 {
		t.Fatalf("%d roof features", len(fc.Features))
	}
	for _, f := range fc.Features {
		p := f.Properties
		sid, _ := p["surface_id"].(float64)
		annual, hasA := p["annual_kwh_m2"].(float64)
		share, hasS := p["share_of_best"].(float64)
		class, hasC := p["class"].(string)
		if !hasA || !hasS || !hasC {
			t.Fatalf("surface %v: no solar values: %v", sid, p)
		}
		if msg := check(sid, annual, share, class); msg != "" {
			t.Errorf("surface %v: %s", sid, msg)
		}
	}
}
