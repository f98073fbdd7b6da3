package cmd

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
)

// TestOlderLoD2PackRefused: a LoD2 pack of schema 1 (before the building
// attributes: no lod2_schema, no attribute tables), whole by its
// checksums, is refused by `svc verify` (exit 1, one line OUTDATED saying
// to import again) and by the catalog `svc serve` publishes from (the pack
// is skipped with that line as the reason).
func TestOlderLoD2PackRefused(t *testing.T) {
	sample := testtool.Shared(t, "samples/LoD2_33_392_5820_1_BE_sample.gml")
	data := t.TempDir()
	if out, err := runCLI(t, "import", "lod2", "--data", data, "--bl", "be", "--snapshot", "2026-07-20", "--license", "dl-de-zero-2.0", sample); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	dir := filepath.Join(data, "lod2", "be", "2026-07-20")
	file := filepath.Join(dir, "lod2.sqlite")
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM svc_metadata WHERE key = 'lod2_schema'`, `DROP TABLE building_attrs`, `DROP TABLE addresses`,
		`DROP TABLE building_bbox`, `VACUUM`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	resum(t, dir, "lod2.sqlite")
	out, err := runCLI(t, "verify", "--data", data)
	want := "OUTDATED lod2/be/2026-07-20: store: LoD2 pack of an older schema 1 (this svc reads 2): import the BL again with `svc import lod2`\n"
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("svc verify of a schema 1 pack: %v\n%s", err, out)
	}
	cat := catalog.New(catalogOptions(data))
	v, err := cat.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.Pack(pack.LoD2, "be"); ok || len(v.Problems) != 1 || !strings.Contains(v.Problems[0].Reason, "import the BL again with `svc import lod2`") ||
		strings.Contains(v.Problems[0].Reason, "\n") {
		t.Errorf("served a schema 1 pack, or the reason is not one line saying to re-import: %+v", v.Problems)
	}
}

// resum records the size and SHA-256 of file in the manifest of the pack
// in dir, as an import of that content would have.
func resum(t *testing.T, dir, file string) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, pack.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	for _, f := range m["files"].([]any) {
		if e := f.(map[string]any); e["path"] == file {
			e["size"], e["sha256"] = len(body), hex.EncodeToString(sum[:])
		}
	}
	raw, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, pack.ManifestName), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
