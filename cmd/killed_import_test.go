package cmd

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/pack"
)

// TestKilledImport kills `svc import lod2` with SIGKILL in the middle of a
// large import: the earlier snapshot stays published and intact, the new
// one is not published, and the next import removes the dead temporary
// directory and says so.
func TestKilledImport(t *testing.T) {
	bin, err := buildSvc()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeTown := func(name string, n int) string {
		var bs []demo.Building
		for i := range n {
			bs = append(bs, demo.Building{ID: fmt.Sprintf("DEHEDM%08d", i+1), X: 470000 + float64(i%200)*25, Y: 5550000 + float64(i/200)*25,
				Z0: 100, Length: 10, Depth: 8, Height: 6, PitchDeg: 35, Roof: demo.RoofKind(i % 3)})
		}
		p := filepath.Join(dir, name)
		f, _ := os.Create(p)
		w := bufio.NewWriter(f)
		if err := demo.WriteCityGML(w, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		f.Close()
		return p
	}
	small, big := writeTown("small.gml", 20), writeTown("big.gml", 40000)
	args := func(snap, file string) []string {
		return []string{"import", "lod2", "--data", data, "--bl", "he", "--snapshot", snap, "--license", "dl-de-by-2.0", file}
	}
	if out, err := runCLI(t, args("2026-07-20", small)...); err != nil {
		t.Fatalf("first import: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args("2026-08-01", big)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(data, "lod2", "he")
	tmp := ""
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && tmp == ""; time.Sleep(20 * time.Millisecond) {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".tmp-") {
				tmp = e.Name()
			}
		}
	}
	time.Sleep(300 * time.Millisecond) // well into the import
	_ = cmd.Process.Kill()
	state, _ := cmd.Process.Wait()
	if tmp == "" {
		t.Fatalf("no temporary directory seen; the import ended with %v", state)
	}
	if state.Success() {
		t.Skip("the import finished before the kill: nothing was interrupted")
	}
	if _, err := os.Stat(filepath.Join(base, "2026-08-01", pack.ManifestName)); err == nil {
		t.Fatal("the killed import was published")
	}
	if m, err := pack.ReadManifest(filepath.Join(base, "2026-07-20")); err != nil || m.LoD2 == nil || m.LoD2.BuildingCount != 20 {
		t.Fatalf("the earlier snapshot: %+v %v", m.LoD2, err)
	}
	if _, err := os.Stat(filepath.Join(base, tmp)); err != nil {
		t.Fatalf("the dead temporary directory is already gone: %v", err)
	}
	out, err := runCLI(t, args("2026-08-02", small)...)
	if err != nil {
		t.Fatalf("next import: %v\n%s", err, out)
	}
	if !strings.Contains(out, "removed") || !strings.Contains(out, "interrupted import") {
		t.Errorf("the next import did not report the removal:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(base, tmp)); !os.IsNotExist(err) {
		t.Errorf("the dead temporary directory is still there: %v", err)
	}
}
