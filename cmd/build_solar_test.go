package cmd

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solar"
)

// solarAnswers fetches the solar answer of every id as generic JSON.
func solarAnswers(t *testing.T, base string, ids []string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, id := range ids {
		res, err := http.Get(base + "/v1/buildings/" + id + "/solar")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", id, res.StatusCode, body)
		}
		var a map[string]any
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		out[id] = a
	}
	return out
}

// sameAnswer reports the first difference between a precomputed and an
// on-demand answer beyond the store's whole Wh/m²: 0.01 in the last
// decimal of a kWh/m² value, 1e-5 relative in a yield (annual x plane
// area), 0.001 in share_of_best. Strings and the structure must be equal.
func sameAnswer(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		for k, x := range av {
			if d := sameAnswer(path+"."+k, x, bv[k]); d != "" {
				return d
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		for i := range av {
			if d := sameAnswer(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
	case float64:
		bv, ok := b.(float64)
		tol := 0.0100001
		switch {
		case strings.HasSuffix(path, "yield_kwh"):
			tol = 1e-5*math.Abs(av) + 0.0100001
		case strings.HasSuffix(path, "share_of_best"):
			tol = 0.0010001
		}
		if !ok || math.Abs(av-bv) > tol {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
	}
	return ""
}

// TestBuildSolarEqualsOnDemand: on the real NRW sample with a DGM, `svc
// build solar` publishes a solar pack (manifest naming the climate file
// and its SHA-256, a file sqlite3 reads) and the route then answers every
// building from it ("computed": "precomputed") with the on-demand answer's
// values (within the store's whole Wh/m²); a server with another climate
// file, or on the default climate, computes on demand again.
func TestBuildSolarEqualsOnDemand(t *testing.T) {
	sqlite3 := testtool.Require(t, "sqlite3", "apt-get install sqlite3")
	data, ids := nrwSample(t)
	sampleDGM(t, data)
	site := solarSampleSite(t, serveData(t, data), ids)
	tmy := tmyCSV(t, site)
	want := solarAnswers(t, serveData(t, data, "--irradiance", tmy), ids)

	out, err := runCLI(t, "build", "solar", "--data", data, "--bl", "nrw", "--irradiance", tmy, "--workers", "2")
	if err != nil {
		t.Fatalf("build solar: %v\n%s", err, out)
	}
	if !strings.Contains(out, fmt.Sprintf("built solar/nrw/2026-07-20: %d buildings", len(ids))) {
		t.Fatalf("build solar said:\n%s", out)
	}
	dir := filepath.Join(data, "solar", "nrw", "2026-07-20")
	m, err := pack.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(tmy)
	sum := sha256.Sum256(raw)
	if m.Solar == nil || m.Solar.ClimateFile != "tmy_nrw.csv" || m.Solar.ClimateSHA256 != hex.EncodeToString(sum[:]) ||
		m.Solar.Buildings != int64(len(ids)) || m.Solar.LoD2Snapshot != "2026-07-20" {
		t.Fatalf("manifest solar part %+v", m.Solar)
	}
	q, err := exec.Command(sqlite3, filepath.Join(dir, m.Solar.File), "SELECT count(*), min(annual_wh_m2) > 0 FROM facets;").CombinedOutput()
	if err != nil || strings.TrimSpace(string(q)) != fmt.Sprintf("%d|1", m.Solar.Facets) {
		t.Fatalf("sqlite3: %v %s, want %d facets", err, q, m.Solar.Facets)
	}

	got := solarAnswers(t, serveData(t, data, "--irradiance", tmy), ids)
	facets := 0
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
		facets += len(g["facets"].([]any))
	}
	if facets == 0 || int64(facets) != m.Solar.Facets {
		t.Errorf("%d facets answered, the pack holds %d", facets, m.Solar.Facets)
	}

	other := tmyCSV(t, solar.Site{LatDeg: site.LatDeg + 0.5, LonDeg: site.LonDeg, ElevationM: 60})
	again := solarAnswers(t, serveData(t, data, "--irradiance", other), ids[:1])
	if c := again[ids[0]]["computed"]; c != "on_demand" {
		t.Errorf("with another climate file the answer is %v, want on_demand", c)
	}
	// A server on the built-in default climate does not use a store of a file.
	if c := solarAnswers(t, serveData(t, data), ids[:1])[ids[0]]["computed"]; c != "on_demand" {
		t.Errorf("on the default climate over a climate file's store the answer is %v, want on_demand", c)
	}
}

// solarTown writes n demo buildings (three roof kinds) on the NRW sample
// tile, inside sampleDGM's grid, imports them as nrw 2026-07-20 with the
// DGM and returns the data directory.
func solarTown(t *testing.T, n int) string {
	t.Helper()
	var bs []demo.Building
	for k := range n {
		bs = append(bs, demo.Building{ID: fmt.Sprintf("DENWSOLAR%05d", k+1), X: 280300 + float64(k%8)*22, Y: 5659300 + float64(k/8)*22,
			Z0: 34, Length: 12, Depth: 9, Height: 6 + float64(k%4), PitchDeg: 30 + float64(k%3)*5, RotDeg: float64(k%5) * 17, Roof: demo.RoofKind(k % 3)})
	}
	gml := filepath.Join(t.TempDir(), "town.gml")
	f, err := os.Create(gml)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := demo.WriteCityGML(w, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	f.Close()
	data := t.TempDir()
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20",
		LicenseID: "dl-de-zero-2.0"}, []string{gml}); err != nil {
		t.Fatal(err)
	}
	sampleDGM(t, data)
	return data
}

// TestBuildSolarSameFile: the solar store is the same file byte for byte
// with 1, 2 and 4 workers; a build killed with SIGKILL after its first
// checkpoints publishes nothing and leaves the published pack alone, and
// --resume then computes only what was not checkpointed and writes the
// same file as an uninterrupted build. A run without --resume starts over
// and says so.
func TestBuildSolarSameFile(t *testing.T) {
	data := solarTown(t, 32)
	tmy := tmyCSV(t, solar.Site{LatDeg: 51.07, LonDeg: 6.91, ElevationM: 60})
	store := filepath.Join(data, "solar", "nrw", "2026-07-20", "solar.sqlite")
	args := func(more ...string) []string {
		return append([]string{"build", "solar", "--data", data, "--bl", "nrw", "--irradiance", tmy, "--chunk", "4"}, more...)
	}
	var ref []byte
	for _, workers := range []string{"1", "2", "4"} {
		if out, err := runCLI(t, args("--workers", workers)...); err != nil {
			t.Fatalf("--workers %s: %v\n%s", workers, err, out)
		}
		b, err := os.ReadFile(store)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = b
		} else if !bytesEqual(b, ref) {
			t.Fatalf("--workers %s wrote another file than --workers 1 (%d vs %d bytes)", workers, len(b), len(ref))
		}
	}

	bin, err := buildSvc()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args("--workers", "1")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	chunks := filepath.Join(data, "solar", "nrw", pack.ResumePrefix+"2026-07-20", "chunks")
	for end := time.Now().Add(120 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(chunks, "00000002.bin")); err == nil {
			break
		}
	}
	_ = cmd.Process.Kill()
	state, _ := cmd.Process.Wait()
	if state.Success() {
		t.Skip("the build finished before the kill: nothing was interrupted")
	}
	done, _ := filepath.Glob(filepath.Join(chunks, "*.bin"))
	if len(done) == 0 {
		t.Fatalf("no checkpoint before the kill; the build ended with %v", state)
	}
	if b, err := os.ReadFile(store); err != nil || !bytesEqual(b, ref) {
		t.Fatalf("the killed build touched the published pack: %v", err)
	}
	out, err := runCLI(t, args("--workers", "2", "--resume")...)
	if err != nil {
		t.Fatalf("--resume: %v\n%s", err, out)
	}
	t.Logf("killed after %d checkpoints; --resume said:\n%s", len(done), out)
	if !strings.Contains(out, "resumed: ") || strings.Contains(out, "started over") {
		t.Errorf("--resume did not continue the checkpoints:\n%s", out)
	}
	if b, _ := os.ReadFile(store); !bytesEqual(b, ref) {
		t.Error("the resumed build wrote another file than the uninterrupted one")
	}
	if _, err := os.Stat(filepath.Join(data, "solar", "nrw", pack.ResumePrefix+"2026-07-20")); !os.IsNotExist(err) {
		t.Errorf("the resumable directory is still there after the commit: %v", err)
	}
	m, err := pack.ReadManifest(filepath.Dir(store))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if strings.Contains(f.Path, "chunk") || strings.Contains(f.Path, "build-solar") {
			t.Errorf("the pack lists the checkpoint file %s", f.Path)
		}
	}

	// --bbox around the first row of 8 buildings builds those alone.
	lon0, lat0 := geo.FromUTM(geo.Zone32, 280290, 5659295)
	lon1, lat1 := geo.FromUTM(geo.Zone32, 280470, 5659305)
	out, err = runCLI(t, args("--bbox", fmt.Sprintf("%f,%f,%f,%f", lon0, lat0, lon1, lat1))...)
	if err != nil || !strings.Contains(out, "built solar/nrw/2026-07-20: 8 buildings") {
		t.Errorf("--bbox of the first row: %v\n%s", err, out)
	}

	// Interrupted again, then run without --resume: it starts over.
	cmd = exec.Command(bin, args("--workers", "1")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(120 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(chunks, "00000000.bin")); err == nil {
			break
		}
	}
	_ = cmd.Process.Kill()
	if state, _ := cmd.Process.Wait(); !state.Success() {
		out, err := runCLI(t, args()...)
		if err != nil || !strings.Contains(out, "started over: build run without --resume") || strings.Contains(out, "resumed: ") {
			t.Errorf("a run without --resume: %v\n%s", err, out)
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// TestBuildSolarHints: without a LoD2 pack, or without a DGM, the build
// names what is missing and the import that makes it.
func TestBuildSolarHints(t *testing.T) {
	tmy := tmyCSV(t, solar.Site{LatDeg: 51.07, LonDeg: 6.91, ElevationM: 60})
	empty := t.TempDir()
	_, err := runCLI(t, "build", "solar", "--data", empty, "--bl", "nrw", "--irradiance", tmy)
	if want := "no LoD2 buildings published for nrw in " + empty + ": import it with svc import lod2 --data " + empty + " --bl nrw"; err == nil || !strings.Contains(errorText(err), want) {
		t.Errorf("without LoD2: %v\nwant %q", err, want)
	}
	data, _ := nrwSample(t)
	_, err = runCLI(t, "build", "solar", "--data", data, "--bl", "nrw", "--irradiance", tmy)
	if want := "no DGM (terrain) published for nrw in " + data + ": import it with svc import dgm --data " + data + " --bl nrw"; err == nil || !strings.Contains(errorText(err), want) {
		t.Errorf("without DGM: %v\nwant %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(data, "solar")); !os.IsNotExist(err) {
		t.Errorf("a refused build left %s behind: %v", filepath.Join(data, "solar"), err)
	}
	// Without --irradiance (the default climate) the same hint.
	_, err = runCLI(t, "build", "solar", "--data", data, "--bl", "nrw")
	if want := "no DGM (terrain) published for nrw"; err == nil || !strings.Contains(errorText(err), want) {
		t.Errorf("without DGM and --irradiance: %v\nwant %q", err, want)
	}
}

// TestBuildSolarFailedBuildings: with the DGM's tile data damaged on disk
// every building's shading fails to read it: the build leaves them out,
// names each with the reason and publishes the rest (here none); with
// --strict it fails, publishes nothing and keeps its checkpoints.
func TestBuildSolarFailedBuildings(t *testing.T) {
	data := solarTown(t, 4)
	tifs, _ := filepath.Glob(filepath.Join(data, "terrain", "nrw", "2026-07-20", "*", "*.tif"))
	if len(tifs) == 0 {
		tifs, _ = filepath.Glob(filepath.Join(data, "terrain", "nrw", "2026-07-20", "*.tif"))
	}
	if len(tifs) == 0 {
		t.Fatal("no DGM tile in the terrain pack")
	}
	for _, p := range tifs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := len(raw) / 4; i < len(raw); i++ {
			raw[i] ^= 0x5a
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmy := tmyCSV(t, solar.Site{LatDeg: 51.07, LonDeg: 6.91, ElevationM: 60})
	args := []string{"build", "solar", "--data", data, "--bl", "nrw", "--irradiance", tmy, "--workers", "2"}
	out, err := runCLI(t, append(args, "--strict")...)
	if err == nil || !strings.Contains(errorText(err), "buildings failed: 4") || !strings.Contains(errorText(err), "--resume") {
		t.Fatalf("--strict with failing buildings: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(data, "solar", "nrw", "2026-07-20")); !os.IsNotExist(err) {
		t.Fatalf("--strict published a pack: %v", err)
	}
	out, err = runCLI(t, append(args, "--resume")...)
	if err != nil {
		t.Fatalf("without --strict: %v\n%s", err, out)
	}
	if !strings.Contains(out, "4 buildings left out:\n  DENWSOLAR00001: ") || !strings.Contains(out, "built solar/nrw/2026-07-20: 0 buildings") {
		t.Errorf("the failed buildings are not named with a reason:\n%s", out)
	}
	t.Logf("%s", out)
}
