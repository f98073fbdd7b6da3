package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigFile: a TOML file sets flags, below the command line and the
// environment; a table applies to its command only; unknown keys and
// tables are errors naming them.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "svc.toml")
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	// keys list reads --data: a directory with a key proves which value won.
	fromFile, fromEnv, fromFlag := filepath.Join(dir, "file"), filepath.Join(dir, "env"), filepath.Join(dir, "flag")
	for _, d := range []string{fromFile, fromEnv, fromFlag} {
		os.MkdirAll(d, 0o755)
		if out, err := runCLI(t, "keys", "create", "--data", d, "--customer", filepath.Base(d), "--tier", "pro"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	cfg := write("data = \"" + fromFile + "\"\n\n[serve]\naddr = \"127.0.0.1:1\"\n")
	out, err := runCLI(t, "keys", "list", "--config", cfg)
	if err != nil || !strings.Contains(out, " file ") {
		t.Errorf("from the file: %v\n%s", err, out)
	}
	t.Setenv("SVC_DATA", fromEnv)
	if out, err := runCLI(t, "keys", "list", "--config", cfg); err != nil || !strings.Contains(out, " env ") {
		t.Errorf("environment over the file: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "keys", "list", "--config", cfg, "--data", fromFlag); err != nil || !strings.Contains(out, " flag ") {
		t.Errorf("command line over both: %v\n%s", err, out)
	}
	for _, tc := range []struct{ body, mention string }{
		{"dta = \"x\"\n", `unknown key "dta"`},
		{"[serve]\nadr = \":1\"\n", `unknown key "adr" in [serve]`},
		{"[sevre]\naddr = \":1\"\n", "[sevre] is not a command"},
		{"data = \n", "svc.toml"},
	} {
		_, err := runCLI(t, "keys", "list", "--config", write(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.mention)
		}
	}
}
