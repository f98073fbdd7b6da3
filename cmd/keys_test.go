package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestKeysCLI(t *testing.T) {
	data := t.TempDir()
	out, err := runCLI(t, "keys", "create", "--data", data, "--customer", "ACME GmbH", "--tier", "pro", "--email", "ops@acme.example", "--quota", "5000")
	if err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	key := regexp.MustCompile(`key:\s+(svc_\S+)`).FindStringSubmatch(out)
	id := regexp.MustCompile(`api_key_id: (\S+)`).FindStringSubmatch(out)
	if key == nil || id == nil {
		t.Fatalf("create output lacks key or id:\n%s", out)
	}
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"bad tier", []string{"keys", "create", "--data", data, "--customer", "x", "--tier", "gold"}, false},
		{"no customer", []string{"keys", "create", "--data", data, "--tier", "pro"}, false},
		{"unknown id", []string{"keys", "revoke", "--data", data, "nope"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := runCLI(t, tc.args...); (err == nil) != tc.ok {
				t.Errorf("err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	out, err = runCLI(t, "keys", "list", "--data", data)
	if err != nil || !strings.Contains(out, id[1]) || !strings.Contains(out, "ops@acme.example") || !strings.Contains(out, "5000") ||
		!strings.Contains(out, "active") || strings.Contains(out, key[1]) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	for range 2 { // idempotent
		if out, err = runCLI(t, "keys", "revoke", "--data", data, id[1]); err != nil || !strings.Contains(out, "revoked "+id[1]) {
			t.Fatalf("revoke: %v\n%s", err, out)
		}
	}
	out, _ = runCLI(t, "keys", "list", "--data", data)
	if !strings.Contains(out, "revoked") {
		t.Errorf("list after revoke:\n%s", out)
	}
	// One create and one effective revoke, both by the CLI (the second
	// revoke changed nothing and is not in the trail).
	out, err = runCLI(t, "keys", "audit", "--data", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 || !strings.Contains(lines[1], "key.create") || !strings.Contains(lines[2], "key.revoke") ||
		!strings.Contains(lines[1], id[1]) || !strings.HasSuffix(strings.TrimSpace(lines[2]), " cli") || !strings.Contains(lines[1], `customer="ACME GmbH"`) {
		t.Errorf("audit: %v\n%s", err, out)
	}
	db, _ := os.ReadFile(filepath.Join(data, sideDB))
	if bytes.Contains(db, []byte(key[1])) {
		t.Error("plaintext key stored in the database")
	}
}

func TestKeysEnvData(t *testing.T) {
	data := t.TempDir()
	t.Setenv("SVC_DATA", data)
	if out, err := runCLI(t, "keys", "create", "--customer", "x", "--tier", "internal"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(data, sideDB)); err != nil {
		t.Errorf("SVC_DATA not used: %v", err)
	}
}

// TestKeysListTrialQuota: a trial key's quota is the trial tier's monthly
// soft limit (what X-Svc-Quota-Limit says), not "unlimited".
func TestKeysListTrialQuota(t *testing.T) {
	data := t.TempDir()
	if out, err := runCLI(t, "keys", "create", "--data", data, "--customer", "Trial user", "--tier", "trial"); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	out, err := runCLI(t, "keys", "list", "--data", data)
	if err != nil || !strings.Contains(out, "35000/month (trial)") || strings.Contains(out, "unlimited") {
		t.Errorf("list: %v\n%s", err, out)
	}
}

// TestServeRefusesMissingData: a mistyped --data is an error naming the
// directory, not an empty server; --init creates it.
func TestServeRefusesMissingData(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo")
	out, err := runCLI(t, "serve", "--data", missing, "--addr", "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "--init") {
		t.Fatalf("serve on a missing directory: %v\n%s", err, out)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("serve created the missing directory")
	}
}

// TestImportCatchesMistakes: the CLI mistakes of a first hour, each with
// what the user must read and what must (not) be left on disk.
func TestImportCatchesMistakes(t *testing.T) {
	berlin := testtool.Shared(t, "samples/real/3910_5817.gml")
	beSample := testtool.Shared(t, "samples/LoD2_33_392_5820_1_BE_sample.gml")
	for _, tc := range []struct {
		name     string
		args     []string
		ok       bool
		mentions []string
	}{
		{"missing --bl", []string{"--snapshot", "2026-01-01", "--license", "cc-by-4.0", berlin}, false, []string{"--bl is required"}},
		{"missing --snapshot", []string{"--bl", "be", "--license", "cc-by-4.0", berlin}, false, []string{"--snapshot is required"}},
		{"Berlin CRS imported as nrw", []string{"--bl", "nrw", "--snapshot", "2026-01-01", "--license", "cc-by-4.0", berlin}, false,
			[]string{"EPSG:25833", "nrw delivers EPSG:25832", "--force"}},
		{"DEBE ids imported as bb (same CRS)", []string{"--bl", "bb", "--snapshot", "2026-01-01", "--license", "cc-by-4.0", beSample}, false,
			[]string{"start with DEBE", "Berlin", "--force"}},
		{"--force imports anyway", []string{"--bl", "nrw", "--force", "--snapshot", "2026-01-01", "--license", "cc-by-4.0", berlin}, true,
			[]string{"imported lod2/nrw/2026-01-01", "next: svc build tileset"}},
		{"BL code in capitals", []string{"--bl", "BE", "--snapshot", "2026-01-01", "--license", "cc-by-4.0", berlin}, true,
			[]string{"imported lod2/be/2026-01-01", "failed geometric validation", "DEB_LOD2_UUID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			out, err := runCLI(t, append([]string{"import", "lod2", "--data", data}, tc.args...)...)
			text := out
			if err != nil {
				text += errorText(err)
			}
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v\n%s", err, tc.ok, out)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(text, m) {
					t.Errorf("output lacks %q:\n%s", m, text)
				}
			}
			if strings.Contains(text, "importer: importer:") || strings.Contains(errorTextOrEmpty(err), "importer:") {
				t.Errorf("repeated or package error prefix: %s", text)
			}
			if !tc.ok {
				if entries, _ := os.ReadDir(data); len(entries) != 0 {
					t.Errorf("a failed import left %v in the data directory", entries)
				}
			}
		})
	}
}

func errorTextOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return errorText(err)
}

// TestVerifyCommand: svc verify passes on a fresh import and names the
// damaged file, with exit status 1, after a byte of it changed.
func TestVerifyCommand(t *testing.T) {
	sample := testtool.Shared(t, "samples/LoD2_33_392_5820_1_BE_sample.gml")
	data := t.TempDir()
	if out, err := runCLI(t, "import", "lod2", "--data", data, "--bl", "be", "--snapshot", "2026-07-20", "--license", "dl-de-zero-2.0", sample); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "verify", "--data", data); err != nil || !strings.Contains(out, "ok      lod2/be/2026-07-20") {
		t.Fatalf("fresh pack: %v\n%s", err, out)
	}
	file := filepath.Join(data, "lod2", "be", "2026-07-20", "lod2.sqlite.search")
	b, _ := os.ReadFile(file)
	b[len(b)/2] ^= 0xff // same size, different content
	os.WriteFile(file, b, 0o644)
	out, err := runCLI(t, "verify", "--data", data)
	if err == nil || !strings.Contains(out, "DAMAGED lod2/be/2026-07-20") || !strings.Contains(out, "lod2.sqlite.search: checksum") {
		t.Errorf("damaged pack: %v\n%s", err, out)
	}
}
