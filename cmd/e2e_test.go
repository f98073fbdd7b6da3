package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
)

// run executes the svc command line in-process.
func run(ctx context.Context, args ...string) (string, error) {
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return out.String(), err
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestDemoAndServe runs `svc demo` into a fresh directory, starts `svc
// serve` on a free port and checks the routes as a client would.
func TestDemoAndServe(t *testing.T) {
	data := t.TempDir()
	start := time.Now()
	out, err := run(context.Background(), "demo", "--data", data)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	t.Logf("demo took %s:\n%s", time.Since(start), out)
	if _, err := run(context.Background(), "demo", "--data", data); err == nil {
		t.Error("demo overwrote an existing data directory without --force")
	}

	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, "serve", "--data", data, "--addr", addr, "--log-level", "warn", "--admin-token", "tok")
		done <- err
	}()
	base := "http://" + addr
	waitUp(t, base+"/healthz")

	get := func(path string) (*http.Response, []byte) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	for _, tc := range []struct {
		path, ctype string
		status      int
		contains    string
	}{
		{"/healthz", "application/json", 200, `"status":"ok"`},
		{"/v1/datasets", "application/json", 200, `"count":5`},
		{"/v1/terrain/datasets", "application/json", 200, `"datasets":[`},
		{"/v1/terrain-mesh/datasets", "application/json", 200, `"datasets":[`},
		{"/v1/osm-cover/datasets", "application/json", 200, `"datasets":[`},
		{"/v1/vegetation/datasets", "application/json", 200, `"datasets":[`},
		{"/v1/attribution", "application/json", 200, `"CC BY 4.0"`},
		{"/v1/buildings?bbox=8.6,50.0,8.8,50.2&limit=5", "application/geo+json", 200, `"bundesland":"he"`},
		{"/v1/buildings?bbox=8.6,50.0", "application/problem+json", 400, "minLon,minLat,maxLon,maxLat"},
		{"/v1/buildings/NOPE", "application/problem+json", 404, "NOPE"},
		{"/openapi.json", "application/json", 200, `"openapi": "3.1.0"`},
		{"/docs", "text/html; charset=utf-8", 200, "searchBuildings"},
		{"/metrics", "text/plain; version=0.0.4; charset=utf-8", 200, "svc_published_bl"},
		{"/nope", "application/problem+json", 404, "No route"},
	} {
		resp, body := get(tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.ctype || !bytes.Contains(body, []byte(tc.contains)) {
			t.Errorf("GET %s: %d %q, want %d %q containing %q; body %.200s", tc.path, resp.StatusCode,
				resp.Header.Get("Content-Type"), tc.status, tc.ctype, tc.contains, body)
		}
	}

	checkDocsInBrowser(t, base+"/docs")

	// A pack imported while serving appears after the admin reload.
	if out, err := run(context.Background(), "import", "lod2", "--data", data, "--bl", "hh", "--snapshot", "2026-08-01",
		"--license", "dl-de-by-2.0", "--force", filepath.Join(data, "sources", "sh", "lod2")); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	req, _ := http.NewRequest("POST", base+"/v1/admin/datasets", nil)
	req.Header.Set("X-Svc-Admin-Token", "tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload: %v %v", resp, err)
	}
	resp.Body.Close()
	_, body := get("/v1/datasets")
	var ds struct{ Count int }
	json.Unmarshal(body, &ds)
	if ds.Count != 6 {
		t.Errorf("after import and reload: %d datasets", ds.Count)
	}

	// SIGHUP rescans too.
	if out, err := run(context.Background(), "import", "lod2", "--data", data, "--bl", "mv", "--snapshot", "2026-08-01",
		"--license", "dl-de-by-2.0", "--force", filepath.Join(data, "sources", "be", "lod2")); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		_, body = get("/v1/datasets")
		json.Unmarshal(body, &ds)
		if ds.Count == 7 {
			break
		}
		if i == 100 {
			t.Fatalf("SIGHUP did not publish the new pack: %d datasets", ds.Count)
		}
		time.Sleep(20 * time.Millisecond)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

func waitUp(t *testing.T, url string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server at %s did not come up", url)
}

func TestEnvironmentSetsFlags(t *testing.T) {
	t.Setenv("SVC_BL", "zz")
	out, err := run(context.Background(), "import", "lod2", "--data", t.TempDir(), "--snapshot", "2026-01-01", "--license", "cc-by-4.0", os.DevNull)
	if err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("SVC_BL not applied: %v %s", err, out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := run(context.Background(), args...)
		if err != nil || !strings.HasPrefix(out, "svc ") || !strings.Contains(out, fmt.Sprintf("API %s", apiVersion())) ||
			!strings.Contains(out, "module github.com/svc-geodata/svc") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: %q %v", args, out, err)
		}
	}
}

// checkDocsInBrowser loads the docs page in headless Chromium with the
// network closed off (as on an air-gapped machine) and reads the rendered DOM.
func checkDocsInBrowser(t *testing.T, url string) {
	t.Helper()
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--dump-dom", url)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	t.Logf("chromium rendered %d bytes of DOM", len(dom))
	for _, want := range []string{"<title>svc API", "searchBuildings", "getBuildingRoof", `id="problems"`, "keyless-daily-limit",
		`id="decisions"`, "<code>"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("rendered docs lack %q", want)
		}
	}
	// Markdown is rendered: no raw backticks or ** reach the reader.
	if strings.Contains(string(dom), "`") || strings.Contains(string(dom), "**") {
		t.Error("the docs page shows raw Markdown")
	}
	// Every operation of the contract has an example request.
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	getJSON(t, strings.TrimSuffix(url, "/docs")+"/openapi.json", &doc)
	ops := 0
	for _, item := range doc.Paths {
		ops += len(item)
	}
	if n := strings.Count(string(dom), "Example request:"); n != ops {
		t.Errorf("%d example requests for %d operations", n, ops)
	}
	// The design decisions are an appendix, after the operations.
	if strings.Index(string(dom), `id="decisions"`) < strings.Index(string(dom), `id="searchBuildings"`) {
		t.Error("the design decisions come before the operations")
	}
	// And the page renders: a screenshot that is not blank.
	shot := filepath.Join(t.TempDir(), "docs.png")
	cmd = exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--user-data-dir="+t.TempDir(), "--window-size=1200,2000", "--screenshot="+shot, url)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if v := lumaVariance(img); v < 100 {
		t.Errorf("docs screenshot looks blank (luma variance %.0f)", v)
	}
}

// serveData runs `svc serve` on data (plus args) on a free loopback port
// until the test ends and returns its base URL once it answers.
func serveData(t *testing.T, data string, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, append([]string{"serve", "--data", data, "--addr", addr, "--log-level", "warn", "--quiet"}, args...)...)
		done <- err
	}()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + addr
	waitUp(t, base+"/healthz")
	return base
}
