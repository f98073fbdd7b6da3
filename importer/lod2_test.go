package importer

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

const (
	sampleNRW = "../../shared/samples/real/LoD2_32_280_5659_1_NW.gml"
	sampleBE  = "../../shared/samples/real/3910_5817.gml"
)

func requireSample(t testing.TB, p string) {
	t.Helper()
	testtool.Shared(t, strings.TrimPrefix(p, "../../shared/"))
}

func TestImportRealSamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, bl string
		buildings      int64
		epsg           string
	}{
		{"nrw", sampleNRW, "nrw", 109, "EPSG:25832"},
		{"be", sampleBE, "be", 166, "EPSG:25833"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requireSample(t, tc.path)
			data := t.TempDir()
			m, err := LoD2(context.Background(), Common{DataDir: data, BL: tc.bl, Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0"}, []string{tc.path})
			if err != nil {
				t.Fatal(err)
			}
			if m.LoD2.BuildingCount != tc.buildings || m.CRS != tc.epsg {
				t.Errorf("buildings %d crs %s, want %d %s", m.LoD2.BuildingCount, m.CRS, tc.buildings, tc.epsg)
			}
			if m.LoD2.ValidationPassPct == nil || *m.LoD2.ValidationPassPct <= 0 || *m.LoD2.ValidationPassPct > 100 {
				t.Errorf("validation pct = %v", m.LoD2.ValidationPassPct)
			}
			dir := filepath.Join(data, "lod2", tc.bl, "2026-07-20")
			if _, err := pack.ReadManifest(dir); err != nil {
				t.Fatal(err)
			}
			s, err := lod2store.OpenLoD2(context.Background(), filepath.Join(dir, LoD2File))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Probe(context.Background()); err != nil {
				t.Fatal(err)
			}
			// Every surface lies in the file's own extent: a search over it
			// pages through all of them exactly once.
			_, surfaces := s.Counts()
			seen := map[int64]bool{}
			var after int64
			for {
				hits, err := s.Search(context.Background(), s.BBox(), after, 97)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if seen[h.SurfaceID] {
						t.Fatalf("surface %d twice", h.SurfaceID)
					}
					seen[h.SurfaceID] = true
				}
				if len(hits) < 97 {
					break
				}
				after = hits[len(hits)-1].SurfaceID
			}
			if int64(len(seen)) != surfaces {
				t.Errorf("paged %d surfaces, file has %d", len(seen), surfaces)
			}
			t.Logf("%s: %d buildings, %d surfaces, %.1f %% valid, bbox %v", tc.name, m.LoD2.BuildingCount, surfaces, *m.LoD2.ValidationPassPct, m.BBoxWGS84)
		})
	}
}

// TestImportFailureKeepsPrevious: with --strict a truncated file fails
// the import, naming the file, and the earlier snapshot stays the only
// one; without it the file is left out, named with its reason, and the
// rest is published.
func TestImportFailureKeepsPrevious(t *testing.T) {
	t.Parallel()
	requireSample(t, sampleNRW)
	data := t.TempDir()
	c := Common{DataDir: data, BL: "nrw", Snapshot: "2026-01-01", LicenseID: "dl-de-zero-2.0"}
	if _, err := LoD2(context.Background(), c, []string{sampleNRW}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "broken.gml")
	raw, _ := os.ReadFile(sampleNRW)
	os.WriteFile(bad, raw[:len(raw)/2], 0o644) // truncated mid-document
	c.Snapshot, c.Strict = "2026-02-01", true
	_, err := LoD2(context.Background(), c, []string{sampleNRW, bad})
	if err == nil {
		t.Fatal("truncated file imported with --strict")
	}
	if !strings.Contains(err.Error(), "broken.gml") {
		t.Errorf("error does not name the file: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(data, "lod2", "nrw"))
	if len(entries) != 1 || entries[0].Name() != "2026-01-01" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after failed import the BL directory holds %v", names)
	}
	var sum LoD2Summary
	c.Strict, c.Summary = false, &sum
	m, err := LoD2(context.Background(), c, []string{bad, sampleNRW})
	if err != nil {
		t.Fatalf("without --strict: %v", err)
	}
	if m.LoD2.BuildingCount != 109 {
		t.Errorf("published %d buildings, want the 109 of the good file", m.LoD2.BuildingCount)
	}
	if len(sum.BadFiles) != 1 || sum.BadFiles[0].Name != bad || !strings.Contains(sum.BadFiles[0].Reason, "broken.gml:") {
		t.Errorf("bad files %+v, want %s with file:line", sum.BadFiles, bad)
	}
}

func TestImportRejectsOptions(t *testing.T) {
	t.Parallel()
	good := Common{DataDir: t.TempDir(), BL: "he", Snapshot: "2026-01-01", LicenseID: "cc-by-4.0"}
	for _, tc := range []struct {
		name  string
		mod   func(*Common)
		paths []string
	}{
		{"bl", func(c *Common) { c.BL = "xx" }, []string{sampleNRW}},
		{"snapshot", func(c *Common) { c.Snapshot = "yesterday" }, []string{sampleNRW}},
		{"licence", func(c *Common) { c.LicenseID = "mit" }, []string{sampleNRW}},
		{"no input", func(c *Common) {}, nil},
		{"missing file", func(c *Common) {}, []string{"/nonexistent/x.gml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.mod(&c)
			if _, err := LoD2(context.Background(), c, tc.paths); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestImportBadInputNamesFileAndLine(t *testing.T) {
	t.Parallel()
	requireSample(t, sampleBE)
	dir := t.TempDir()
	raw, _ := os.ReadFile(sampleBE)
	gk := strings.ReplaceAll(string(raw), "EPSG::25833", "EPSG::31468") // Gauss-Krüger: not supported
	if gk == string(raw) {
		t.Fatal("sample has no EPSG::25833 srsName to replace")
	}
	os.WriteFile(filepath.Join(dir, "gk.gml"), []byte(gk), 0o644)
	zipped := filepath.Join(dir, "tiles.zip")
	writeZip(t, zipped, "a.gml", raw)
	zraw, _ := os.ReadFile(zipped)
	os.WriteFile(filepath.Join(dir, "cut.zip"), zraw[:len(zraw)/2], 0o644)
	os.WriteFile(filepath.Join(dir, "empty.gml"), nil, 0o644)
	os.MkdirAll(filepath.Join(dir, "nothing"), 0o755)
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"gk.gml", []string{"gk.gml:", "CRS"}},
		{"cut.zip", []string{"cut.zip"}},
		{"empty.gml", []string{"empty.gml"}},
		{"nothing", []string{"nothing"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := t.TempDir()
			_, err := LoD2(context.Background(), Common{DataDir: data, BL: "be", Snapshot: "2026-07-20", LicenseID: "cc-by-4.0"},
				[]string{filepath.Join(dir, tc.file)})
			if err == nil {
				t.Fatal("imported")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(data, "lod2", "be")); len(entries) != 0 {
				t.Errorf("failed import left %d entries", len(entries))
			}
		})
	}
	// The good zip imports.
	if _, err := LoD2(context.Background(), Common{DataDir: t.TempDir(), BL: "be", Snapshot: "2026-07-20", LicenseID: "cc-by-4.0"}, []string{zipped}); err != nil {
		t.Errorf("zip: %v", err)
	}
}

func writeZip(t *testing.T, path, name string, body []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create(name)
	w.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
