package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// writeDGMTiles writes n 1 km DGM tiles of 1 m pixels (Frankfurt, EPSG:25832)
// into dir and returns their paths.
func writeDGMTiles(t *testing.T, dir string, n int) []string {
	t.Helper()
	var out []string
	for k := range n {
		e, nn := 470000.0+float64(k)*1000, 5550000.0
		nd := -9999.0
		g := raster.Grid{Width: 1000, Height: 1000, Data: make([]float32, 1000*1000), EPSG: 25832, Nodata: &nd,
			GeoTransform: [6]float64{e, 1, 0, nn + 1000, 0, -1}}
		for i := range g.Data {
			x, y := float64(i%1000), float64(i/1000)
			g.Data[i] = float32(120 + 15*math.Sin((x+e)/97)*math.Cos(y/131) + 3*math.Sin((x+2*y)/23))
		}
		var b bytes.Buffer
		if err := raster.WriteCOG(&b, g, raster.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("dgm1_32_%d_%d.tif", int(e/1000), int(nn/1000)))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestRasterImportKilledResumes kills `svc import dgm` (SIGKILL) after a
// few of its tiles: nothing is published; `--resume` converts only the
// tiles the killed run had not finished, skips a damaged file naming it
// in the summary and in --report, and publishes the pack.
func TestRasterImportKilledResumes(t *testing.T) {
	bin, err := buildSvc()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, data := filepath.Join(dir, "src"), filepath.Join(dir, "data")
	os.Mkdir(src, 0o755)
	const n = 10
	paths := writeDGMTiles(t, src, n)
	b, _ := os.ReadFile(paths[0])
	os.WriteFile(filepath.Join(src, "damaged.tif"), b[:len(b)/4], 0o644)
	args := []string{"import", "dgm", "--data", data, "--bl", "he", "--snapshot", "2026-07-20", "--license", "dl-de-by-2.0", "--workers", "1", src}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(data, string(pack.Terrain), "he")
	journal := filepath.Join(base, ".resume-2026-07-20", "journal.jsonl")
	done := 0
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end) && done < 3; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(journal)
		done = bytes.Count(b, []byte("\n"))
	}
	_ = cmd.Process.Kill()
	state, _ := cmd.Process.Wait()
	if state.Success() {
		t.Skip("the import finished before the kill: nothing was interrupted")
	}
	if done < 3 {
		t.Fatalf("%d tiles journaled before the kill", done)
	}
	if _, err := os.Stat(filepath.Join(base, "2026-07-20")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed import was published: %v", err)
	}
	report := filepath.Join(dir, "report.tsv")
	out, err := runCLI(t, append(args[:len(args)-1], "--resume", "--report", report, src)...)
	if err != nil {
		t.Fatalf("resumed import: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(\d+) tiles converted, (\d+) reused .*, (\d+) resumed`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary in:\n%s", out)
	}
	conv, _ := strconv.Atoi(m[1])
	resumed, _ := strconv.Atoi(m[3])
	t.Logf("killed after %d journaled tiles; resumed %d, converted %d", done, resumed, conv)
	if resumed < done || conv+resumed != n {
		t.Errorf("resumed %d and converted %d of %d tiles after %d were journaled:\n%s", resumed, conv, n, done, out)
	}
	if !strings.Contains(out, "  "+filepath.Join(src, "damaged.tif")+": ") {
		t.Errorf("the damaged file is not named in the summary:\n%s", out)
	}
	rep, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(rep), "\tbad-file\t"+filepath.Join(src, "damaged.tif")+"\t") {
		t.Errorf("report: %v\n%s", err, rep)
	}
	pm, err := pack.ReadManifest(filepath.Join(base, "2026-07-20"))
	if err != nil || pm.Terrain.TileCount != n {
		t.Fatalf("published pack: %+v %v", pm.Terrain, err)
	}
}

// TestBuildProgressLinesAndReuse runs `svc build terrain-mesh` with stderr
// not a terminal: it writes plain progress lines (no bar), the last one
// saying it is done, and reports the tiles built; the same build again
// reuses every tile.
func TestBuildProgressLinesAndReuse(t *testing.T) {
	dir := t.TempDir()
	src, data := filepath.Join(dir, "src"), filepath.Join(dir, "data")
	os.Mkdir(src, 0o755)
	writeDGMTiles(t, src, 3)
	if out, err := runCLI(t, "import", "dgm", "--data", data, "--bl", "he", "--snapshot", "2026-07-20", "--license", "dl-de-by-2.0", src); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	build := []string{"build", "terrain-mesh", "--data", data, "--bl", "he", "--grid", "257", "--progress-interval", "1ns"}
	out, err := runCLI(t, build...)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, want := range []string{"build terrain-mesh: 1/3 tiles (33 %), ", "build terrain-mesh: 3/3 tiles (100 %), ", "ETA 0s, done in ", "3 tiles built, 0 reused"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\r") || strings.Contains(out, "\x1b[") {
		t.Errorf("bar redraws in non-terminal output:\n%q", out)
	}
	if out, err = runCLI(t, build...); err != nil || !strings.Contains(out, "0 tiles built, 3 reused") {
		t.Errorf("second build: %v\n%s", err, out)
	}
}
