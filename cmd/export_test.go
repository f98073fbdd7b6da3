package cmd

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestExportGLBEqualsHTTP: svc export glb and GET /v1/buildings/3d.glb
// share one implementation; for the same bbox and framing they write the
// same bytes, which the Khronos validator accepts.
func TestExportGLBEqualsHTTP(t *testing.T) {
	data := demoData(t)
	base := serveData(t, data)
	const bbox = "8.672,50.106,8.68,50.112"
	resp, err := http.Get(base + "/v1/buildings/3d.glb?bbox=" + bbox + "&rotate_x=-90&colorize_roofs=true")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(want) < 1000 {
		t.Fatalf("HTTP: %d, %d bytes", resp.StatusCode, len(want))
	}
	out := filepath.Join(t.TempDir(), "town.glb")
	text, err := runCLI(t, "export", "glb", "--data", data, "--bbox", bbox, "--rotate-x", "-90", "--colorize-roofs", "-o", out)
	if err != nil || !strings.Contains(text, "buildings of [he]") {
		t.Fatalf("%v\n%s", err, text)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the CLI wrote %d bytes, HTTP answered %d; they differ", len(got), len(want))
	}
	node := testtool.Node(t, "gltf-validator")
	root, _ := testtool.ModuleRoot()
	rep, err := exec.Command(node, filepath.Join(root, "glb", "testdata", "validate.js"), out).Output()
	if err != nil || !strings.Contains(string(rep), `"errors":0,`) {
		t.Errorf("gltf-validator: %v %s", err, rep)
	}
	if _, err := runCLI(t, "export", "glb", "--data", data, "--bbox", "5,47,15,55", "-o", out); err == nil || !strings.Contains(errorText(err), "km2") {
		t.Errorf("a bbox over the limit: %v", err)
	}
}

// TestQueryEqualsHTTP: svc query and the point routes share package query;
// on the demo pack they print the bodies the server answers, byte for
// byte, and a point off the data is one plain line naming it.
func TestQueryEqualsHTTP(t *testing.T) {
	data := demoData(t)
	base := serveData(t, data)
	for _, tc := range []struct {
		http string
		cli  []string
	}{
		{"/v1/terrain/elevation?lat=50.115&lon=8.67", []string{"elevation", "--lat", "50.115", "--lon", "8.67"}},
		{"/v1/terrain/elevation?lat=50.1151&lon=8.6712&interpolation=cubic",
			[]string{"elevation", "--lat", "50.1151", "--lon", "8.6712", "--interpolation", "cubic"}},
		{"/v1/vegetation/canopy?lat=50.116&lon=8.670", []string{"canopy", "--lat", "50.116", "--lon", "8.670"}},
		{"/v1/vegetation/canopy?lat=50.116&lon=8.670&trunk=false", []string{"canopy", "--lat", "50.116", "--lon", "8.670", "--trunk=false"}},
	} {
		t.Run(tc.http, func(t *testing.T) {
			resp, err := http.Get(base + tc.http)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("HTTP: %d %s", resp.StatusCode, want)
			}
			got, err := runCLI(t, append([]string{"query"}, append(tc.cli, "--data", data)...)...)
			if err != nil || got != string(want) {
				t.Fatalf("CLI: %v\n got: %s\nwant: %s", err, got, want)
			}
		})
	}
	_, err := runCLI(t, "query", "elevation", "--data", data, "--lat", "40", "--lon", "3")
	if err == nil || !strings.Contains(errorText(err), "covers lon 3, lat 40") {
		t.Errorf("a point off the data: %v", err)
	}
	if _, err := runCLI(t, "query", "elevation", "--data", data, "--lat", "91", "--lon", "3"); err == nil {
		t.Error("latitude 91 accepted")
	}
}
