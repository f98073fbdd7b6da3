package scalerun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/internal/testtool"
)

// svcBinary builds svc (CGO_ENABLED=0, as make build) into a temporary
// directory; SVC_BIN names a built one instead.
func svcBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SVC_BIN"); p != "" {
		return p
	}
	root, ok := testtool.ModuleRoot()
	if !ok {
		t.Fatal("module root not found")
	}
	bin := filepath.Join(t.TempDir(), "svc")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBenchScaleSmoke is make bench-scale at SCALE=0.002 (68 km² of NRW,
// 4 m rasters so it fits in a minute): every stage runs through the real
// CLI, the imported and built counts match the generated input, the
// server answers a bbox search of a generated km with that km's buildings,
// the address lookup finds the buildings of the addresses scalegen wrote
// (checkAddresses), every product has a root tileset.json, and the table
// is written.
func TestBenchScaleSmoke(t *testing.T) {
	samples := testtool.Shared(t, "samples")
	svc := svcBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dir := t.TempDir()
	osmium, _ := exec.LookPath("osmium") // XML when absent: the importer reads both
	start := time.Now()
	m, err := scalegen.Generate(ctx, scalegen.Options{BL: "nrw", Scale: 0.002, Seed: 1, Dir: filepath.Join(dir, "input"), Samples: samples, Osmium: osmium, PixelM: 4})
	if err != nil {
		t.Fatal(err)
	}
	if m.AreaKM2 != 68 {
		t.Fatalf("SCALE=0.002 placed %d km², want 68", m.AreaKM2)
	}
	judges := smokeJudges(t, samples)
	root, _ := testtool.ModuleRoot()
	var log strings.Builder
	r, err := Run(ctx, Options{SVC: svc, Data: filepath.Join(dir, "data"), Manifest: m, Workers: 2, Load: 2 * time.Second, Conns: 8, Log: &log, Judges: judges,
		Irradiance: filepath.Join(root, "solar", "climate", "testdata", "tmy_potsdam.csv"), SolarKM2: 0.01})
	t.Log("\n" + log.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generate %.1f s, pipeline and serve %.1f s", m.Seconds, time.Since(start).Seconds()-m.Seconds)
	want := map[string]int{
		"import lod2": m.LoD2.Buildings, "import dgm": m.DGM.Tiles, "import vegetation": -1, "import osm": -1,
		"build tileset": m.LoD2.Buildings, "build terrain-mesh": m.DGM.Tiles, "build vegetation": m.CDSM.Tiles, "build osm-cover": m.DGM.Tiles,
		"build solar": -1, // one km² of buildings: checked below
	}
	for _, s := range r.Stages {
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected stage %s", s.Name)
			continue
		}
		delete(want, s.Name)
		if s.WallS <= 0 || s.CPUS <= 0 || s.PeakRSS <= 0 {
			t.Errorf("%s: wall %g s, CPU %g s, peak RSS %d: not measured", s.Name, s.WallS, s.CPUS, s.PeakRSS)
		}
		if runtime.GOOS == "linux" && (s.PeakAnon <= 0 || s.PeakFile <= 0) {
			t.Errorf("%s: peak anonymous %d, file-backed %d bytes: not sampled", s.Name, s.PeakAnon, s.PeakFile)
		}
		if w >= 0 && s.Reported != w {
			t.Errorf("%s reported %d %s, generated %d (%q)", s.Name, s.Reported, s.Unit, w, s.Summary)
		}
		// The template tile holds 109 buildings, 29 of them in the 100 m
		// square of its south-east corner (the smoke test's time).
		if s.Name == "build solar" && (s.Items < 5 || s.Items > 100 || s.Facets < s.Items || s.Items != s.Reported) {
			t.Errorf("build solar computed %d buildings (reported %d), %d facets (%q)", s.Items, s.Reported, s.Facets, s.Summary)
		}
	}
	for n := range want {
		t.Errorf("stage %s did not run", n)
	}
	sv := r.Serve
	if sv.DatasetBuildings != m.LoD2.Buildings {
		t.Errorf("/v1/datasets counts %d buildings, generated %d", sv.DatasetBuildings, m.LoD2.Buildings)
	}
	if sv.ProbeOwn == 0 || sv.ProbeOwn != sv.ProbeFeatures {
		t.Errorf("search of tile %v: %d surfaces, %d of its own buildings", sv.ProbeTile, sv.ProbeFeatures, sv.ProbeOwn)
	}
	if sv.Requests == 0 || sv.Non200 != 0 || sv.P50Ms <= 0 || sv.P99Ms < sv.P50Ms {
		t.Errorf("search load: %+v", sv)
	}
	checkAddresses(t, sv.Addresses, m)
	products := map[string]bool{}
	for _, ts := range r.Tilesets {
		if ts.Bytes == 0 || ts.Tiles == 0 {
			t.Errorf("%s: root tileset.json %d bytes, %d content files", ts.Product, ts.Bytes, ts.Tiles)
		}
		products[strings.SplitN(ts.Product, "/", 2)[0]] = true
	}
	for _, p := range []string{"buildings", "terrain-mesh", "veg", "osm-cover"} {
		if !products[p] {
			t.Errorf("no %s tileset (have %v)", p, r.Tilesets)
		}
	}
	checkJudges(t, r, judges)
	if len(r.Judge.CesiumErrors) > 0 || r.Judge.CesiumFailed != "" || r.Judge.ValidatorFailed != "" {
		t.Errorf("judges failed: CesiumJS %q %s; validator %s", r.Judge.CesiumErrors, r.Judge.CesiumFailed, r.Judge.ValidatorFailed)
	}
	md, err := Write(filepath.Join(dir, "results"), r, m)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(md)
	for _, s := range []string{"| import lod2 | 7412 buildings", "| build osm-cover |", "| build solar |", "## Solar build", "## Extrapolation", "cold start", "## Judges", "| address lookup | clients |", "| misspelt |"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("%s lacks %q", md, s)
		}
	}
}

// smokeJudges finds the judging tools; a missing one skips its judge
// locally with what to install and fails the test under CI=true.
func smokeJudges(t *testing.T, samples string) Judges {
	t.Helper()
	root, ok := testtool.ModuleRoot()
	if !ok {
		t.Fatal("module root not found")
	}
	j := FindJudges(root, filepath.Dir(samples))
	// One tileset of each product in the browser (the smoke test's time).
	j.Views = []string{"state", "street"}
	j.Products = []string{"buildings/nrw/2026-01-01", "terrain-mesh/nrw/2026-01-01", "osm-cover/nrw/2026-01-01/surface", "veg/nrw/2026-01-01/trees"}
	for _, skip := range []string{j.SkipValidator, j.SkipCesium} {
		if skip == "" {
			continue
		}
		if testtool.CI() {
			t.Errorf("CI=true requires the judges: %s", skip)
		} else {
			t.Logf("skipping a judge: %s", skip)
		}
	}
	return j
}

// checkJudges asserts what a user of the output sees: the official
// validator finds no error in any product (its tileset JSON, external
// tilesets and content), and CesiumJS loads each product without an error
// or failed tile, with fewer than 50 tile requests for the first view of
// the whole state, at most 200 for a street view of a fresh tileset, and
// draws the product there (picks hit it).
func checkJudges(t *testing.T, r *Result, j Judges) {
	t.Helper()
	if len(r.Tilesets) == 0 {
		t.Fatal("no tilesets to judge")
	}
	for _, ts := range r.Tilesets {
		var jp *Judgement
		for i := range r.Judge.Products {
			if r.Judge.Products[i].Product == ts.Product {
				jp = &r.Judge.Products[i]
			}
		}
		if jp == nil {
			if j.Validator != "" || j.Chromium != "" {
				t.Errorf("%s: not judged", ts.Product)
			}
			continue
		}
		if j.Validator != "" {
			if !jp.Validated || jp.ContentValidated == 0 || jp.ContentValidated != jp.ContentFiles {
				t.Errorf("%s: validated %v, %d of %d content files", ts.Product, jp.Validated, jp.ContentValidated, jp.ContentFiles)
			}
			if jp.ValidatorErrors != 0 {
				t.Errorf("%s: the 3D Tiles validator reports %d errors: %q", ts.Product, jp.ValidatorErrors, jp.ValidatorIssues)
			}
		}
		if j.Chromium != "" && slices.Contains(j.Products, ts.Product) {
			if !jp.Viewed || len(jp.CesiumErrors) > 0 {
				t.Errorf("%s: CesiumJS viewed %v, errors %q", ts.Product, jp.Viewed, jp.CesiumErrors)
			}
			for name, n := range map[string]int{"state": jp.StateRequests} {
				if n < 1 || n > StateViewMaxRequests {
					t.Errorf("%s: %s view of the whole state: %d tile requests, want 1..%d", ts.Product, name, n, StateViewMaxRequests)
				}
			}
			if jp.StreetRequests > StreetViewMaxRequests {
				t.Errorf("%s: street view: %d tile requests, want at most %d", ts.Product, jp.StreetRequests, StreetViewMaxRequests)
			}
			if jp.StreetHits == 0 || jp.StreetContent == 0 {
				t.Errorf("%s: the street view draws nothing: %d/100 picks hit, %d tiles with content", ts.Product, jp.StreetHits, jp.StreetContent)
			}
		}
	}
}

// checkAddresses asserts what a user of the address lookup sees at scale:
// every exact query and every street, number and postcode query answers
// the building scalegen wrote that address into (its gml:id) first, at its
// place; the other spellings, misspellings and street-and-city queries
// nearly always do; and the lookup was timed.
func checkAddresses(t *testing.T, a AddrLoad, m *scalegen.Manifest) {
	t.Helper()
	if m.Addresses.Count < 90*m.AreaKM2 || m.Addresses.Localities == 0 || len(m.Addresses.Sample) == 0 || len(m.Addresses.Common) == 0 {
		t.Fatalf("generated addresses %+v", m.Addresses)
	}
	if a.Queries != len(m.Addresses.Sample)*len(scalegen.AddrKinds) || a.Non200 != 0 {
		t.Fatalf("address lookups: %d queries, %d not 200", a.Queries, a.Non200)
	}
	for _, k := range scalegen.AddrKinds {
		want := a.Sent[k]
		switch k {
		case "abbreviated", "misspelt", "city":
			want = a.Sent[k] * 95 / 100
		}
		if a.Sent[k] != len(m.Addresses.Sample) || a.Found[k] < want {
			t.Errorf("%s queries: the generated building first in %d of %d, want at least %d", k, a.Found[k], a.Sent[k], want)
		}
	}
	for _, k := range []string{"common exact", "common city"} {
		if a.Sent[k] != len(m.Addresses.Common) || a.Found[k] != a.Sent[k] {
			t.Errorf("%s queries: the generated building (street) first in %d of %d", k, a.Found[k], a.Sent[k])
		}
	}
	if a.MaxPointM > 1 {
		t.Errorf("an answered point lies %.1f m from its building's centre", a.MaxPointM)
	}
	for _, l := range []Latency{a.Serial, a.Concurrent} {
		if l.Requests == 0 || l.P50Ms <= 0 || l.P99Ms < l.P50Ms {
			t.Errorf("address load %+v", l)
		}
	}
	t.Logf("address lookup: one client p50 %.2f ms p99 %.2f ms; %d clients p50 %.2f ms p99 %.2f ms; by kind %v; found %v of %v",
		a.Serial.P50Ms, a.Serial.P99Ms, a.Concurrent.Conns, a.Concurrent.P50Ms, a.Concurrent.P99Ms, a.P50ByKind, a.Found, a.Sent)
}
