package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
)

// TestKilledImportResumes kills `svc import lod2` with SIGKILL after its
// first checkpoints: the earlier snapshot stays published and intact, the
// new one is not published. `--resume` then finishes it without reading
// the files done before the kill (they are overwritten with garbage of
// the same size first: read again they would be bad files) and publishes
// the same pack as an uninterrupted import: the same rows and the same
// search file. A run without --resume starts over and says so.
func TestKilledImportResumes(t *testing.T) {
	bin, err := buildSvc()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeTown := func(path string, first, n int) {
		var bs []demo.Building
		for i := range n {
			k := first + i
			bs = append(bs, demo.Building{ID: fmt.Sprintf("DEHEDM%08d", k+1), X: 470000 + float64(k%200)*25, Y: 5550000 + float64(k/200)*25,
				Z0: 100, Length: 10, Depth: 8, Height: 6, PitchDeg: 35, Roof: demo.RoofKind(k % 3)})
		}
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		if err := demo.WriteCityGML(w, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		f.Close()
	}
	small := filepath.Join(dir, "small.gml")
	writeTown(small, 0, 20)
	tiles := filepath.Join(dir, "tiles")
	os.Mkdir(tiles, 0o755)
	const files, per = 16, 1200
	for i := range files {
		writeTown(filepath.Join(tiles, fmt.Sprintf("t%02d.gml", i)), i*per, per)
	}
	args := func(data, snap, src string) []string {
		return []string{"import", "lod2", "--data", data, "--bl", "he", "--snapshot", snap, "--license", "dl-de-by-2.0", "--workers", "2", src}
	}
	if out, err := runCLI(t, args(data, "2026-07-20", small)...); err != nil {
		t.Fatalf("first import: %v\n%s", err, out)
	}
	// The reference: the same tiles imported without interruption.
	ref := filepath.Join(dir, "ref")
	if out, err := runCLI(t, args(ref, "2026-08-01", tiles)...); err != nil {
		t.Fatalf("reference import: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, args(data, "2026-08-01", tiles)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(data, "lod2", "he")
	journal := filepath.Join(base, pack.ResumePrefix+"2026-08-01", "import-journal.jsonl")
	checkpoint := regexp.MustCompile(`"checkpoint":\{"files":(\d+)`)
	done := 0
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end) && done == 0; time.Sleep(5 * time.Millisecond) {
		raw, _ := os.ReadFile(journal)
		if m := checkpoint.FindAllSubmatch(raw, -1); len(m) > 0 {
			done, _ = strconv.Atoi(string(m[len(m)-1][1]))
		}
	}
	_ = cmd.Process.Kill()
	state, _ := cmd.Process.Wait()
	if state.Success() {
		t.Skip("the import finished before the kill: nothing was interrupted")
	}
	if done == 0 {
		t.Fatalf("no checkpoint seen before the kill; the import ended with %v", state)
	}
	if _, err := os.Stat(filepath.Join(base, "2026-08-01", pack.ManifestName)); err == nil {
		t.Fatal("the killed import was published")
	}
	if m, err := pack.ReadManifest(filepath.Join(base, "2026-07-20")); err != nil || m.LoD2 == nil || m.LoD2.BuildingCount != 20 {
		t.Fatalf("the earlier snapshot: %+v %v", m.LoD2, err)
	}
	// What the journal says is done must not be read again.
	raw, _ := os.ReadFile(journal)
	m := checkpoint.FindAllSubmatch(raw, -1)
	done, _ = strconv.Atoi(string(m[len(m)-1][1]))
	for i := range done {
		p := filepath.Join(tiles, fmt.Sprintf("t%02d.gml", i))
		st, _ := os.Stat(p)
		os.WriteFile(p, bytes.Repeat([]byte("x"), int(st.Size())), 0o644)
	}

	out, err := runCLI(t, append(args(data, "2026-08-01", tiles), "--resume")...)
	if err != nil {
		t.Fatalf("--resume: %v\n%s", err, out)
	}
	t.Logf("killed after %d of %d files were checkpointed; --resume said:\n%s", done, files, out)
	if want := fmt.Sprintf("resumed: %d of %d files were done", done, files); !strings.Contains(out, want) {
		t.Errorf("--resume output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "skipped as bad") {
		t.Errorf("--resume read finished files again:\n%s", out)
	}
	got, err := pack.ReadManifest(filepath.Join(base, "2026-08-01"))
	if err != nil || got.LoD2.BuildingCount != files*per {
		t.Fatalf("resumed pack: %+v %v", got.LoD2, err)
	}
	if _, err := os.Stat(filepath.Join(base, pack.ResumePrefix+"2026-08-01")); !os.IsNotExist(err) {
		t.Errorf("the resumable directory is still there after the commit: %v", err)
	}
	want, _ := pack.ReadManifest(filepath.Join(ref, "lod2", "he", "2026-08-01"))
	for _, f := range []string{"lod2.sqlite.search", "lod2.sqlite.tiles"} {
		a, _ := os.ReadFile(filepath.Join(base, "2026-08-01", f))
		b, _ := os.ReadFile(filepath.Join(ref, "lod2", "he", "2026-08-01", f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the uninterrupted import's", f)
		}
	}
	if a, b := dumpLoD2(t, filepath.Join(base, "2026-08-01", "lod2.sqlite")), dumpLoD2(t, filepath.Join(ref, "lod2", "he", "2026-08-01", "lod2.sqlite")); a != b {
		t.Errorf("the resumed pack's rows differ from the uninterrupted import's")
	}
	if got.LoD2.SurfaceCount != want.LoD2.SurfaceCount {
		t.Errorf("surfaces %d, uninterrupted %d", got.LoD2.SurfaceCount, want.LoD2.SurfaceCount)
	}
}

// dumpLoD2 returns every row of the LoD2 tables and of the R*Tree's node
// table, in key order, as text: two imports of the same buildings give the
// same dump whatever their page layout.
func dumpLoD2(t *testing.T, path string) string {
	t.Helper()
	return testtool.SQLRows(t, path,
		`SELECT surface_id, building_id, gmlid, surface_class, hex(geom) FROM surfaces ORDER BY surface_id`,
		`SELECT building_id, gmlid, surface_count, valid FROM buildings ORDER BY building_id`,
		`SELECT gmlid, building_id FROM building_ids ORDER BY gmlid`,
		`SELECT nodeno, hex(data) FROM idx_surfaces_geom_node ORDER BY nodeno`,
		`SELECT key, value FROM svc_metadata WHERE key <> 'import_finished_at' ORDER BY key`)
}

// TestKilledPatchedImport kills `svc import lod2` with SIGKILL while it
// patches a copy of the previous snapshot (one of 16 files changed): the
// previous snapshot stays published, its files the same bytes (pack
// verify finds no damage), and the new one is not published. --resume
// then starts the patch over and publishes the same pack as an
// uninterrupted patched import of the same files.
func TestKilledPatchedImport(t *testing.T) {
	bin, err := buildSvc()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, ref := filepath.Join(dir, "data"), filepath.Join(dir, "ref")
	tiles := filepath.Join(dir, "tiles")
	os.Mkdir(tiles, 0o755)
	const files, per = 16, 1200
	for i := range files {
		var bs []demo.Building
		for j := range per {
			k := i*per + j
			bs = append(bs, demo.Building{ID: fmt.Sprintf("DEHEDM%08d", k+1), X: 470000 + float64(k%200)*25, Y: 5550000 + float64(k/200)*25,
				Z0: 100, Length: 10, Depth: 8, Height: 6, PitchDeg: 35, Roof: demo.RoofKind(k % 3)})
		}
		var b bytes.Buffer
		if err := demo.WriteCityGML(&b, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(tiles, fmt.Sprintf("t%02d.gml", i)), b.Bytes(), 0o644)
	}
	args := func(data, snap string) []string {
		return []string{"import", "lod2", "--data", data, "--bl", "he", "--snapshot", snap, "--license", "dl-de-by-2.0", "--workers", "2", tiles}
	}
	for _, d := range []string{data, ref} {
		if out, err := runCLI(t, args(d, "2026-07-20")...); err != nil {
			t.Fatalf("first import: %v\n%s", err, out)
		}
	}
	// The update: file 5 is delivered again (another content hash).
	p := filepath.Join(tiles, "t05.gml")
	raw, _ := os.ReadFile(p)
	os.WriteFile(p, append(raw, "<!-- delivered again -->\n"...), 0o644)
	if out, err := runCLI(t, args(ref, "2026-08-01")...); err != nil || !strings.Contains(out, "reused 15 unchanged files") {
		t.Fatalf("reference import: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, args(data, "2026-08-01")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(data, "lod2", "he")
	copied := filepath.Join(base, pack.ResumePrefix+"2026-08-01", "lod2.sqlite")
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(copied); err == nil {
			break
		}
	}
	_ = cmd.Process.Kill()
	state, _ := cmd.Process.Wait()
	if state.Success() {
		t.Skip("the import finished before the kill: nothing was interrupted")
	}
	if _, err := os.Stat(filepath.Join(base, "2026-08-01", pack.ManifestName)); err == nil {
		t.Fatal("the killed import was published")
	}
	prev := filepath.Join(base, "2026-07-20")
	m, err := pack.ReadManifest(prev)
	if err != nil || m.LoD2 == nil || m.LoD2.BuildingCount != files*per {
		t.Fatalf("the previous snapshot: %+v %v", m.LoD2, err)
	}
	if dmg, err := pack.Verify(t.Context(), prev, m); err != nil || len(dmg) > 0 {
		t.Fatalf("the previous snapshot was changed: %v %v", dmg, err)
	}

	out, err := runCLI(t, append(args(data, "2026-08-01"), "--resume")...)
	if err != nil || !strings.Contains(out, "reused 15 unchanged files") {
		t.Fatalf("--resume: %v\n%s", err, out)
	}
	got := filepath.Join(base, "2026-08-01")
	want := filepath.Join(ref, "lod2", "he", "2026-08-01")
	a, _ := os.ReadFile(filepath.Join(got, "lod2.sqlite.search"))
	b, _ := os.ReadFile(filepath.Join(want, "lod2.sqlite.search"))
	if !bytes.Equal(a, b) {
		t.Errorf("the search file differs from the uninterrupted import's")
	}
	if a, b := dumpLoD2(t, filepath.Join(got, "lod2.sqlite")), dumpLoD2(t, filepath.Join(want, "lod2.sqlite")); a != b {
		t.Errorf("the resumed pack's rows differ from the uninterrupted import's")
	}
}
