package cmd

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestExportGLBEqualsHTTP: svc export glb and GET /v1/buildings/3d.glb
// share one implementation; for the same bbox and framing they write the
// same bytes, for every BL of the demo and for the real NRW and Berlin
// tiles of ../shared (whose odd triangle counts once made
// buffers[0].byteLength differ by the padding), and the Khronos validator
// accepts them.
func TestExportGLBEqualsHTTP(t *testing.T) {
	data := demoData(t)
	base := serveData(t, data)
	var first string
	for _, s := range demo.Sites {
		bbox := fmt.Sprintf("%.4f,%.4f,%.4f,%.4f", s.Lon-0.004, s.Lat-0.003, s.Lon+0.004, s.Lat+0.003)
		for _, v := range glbVariants {
			out := exportEqualsHTTP(t, base, data, s.BL, bbox, v)
			if first == "" {
				first = out
			}
		}
	}
	node := testtool.Node(t, "gltf-validator")
	root, _ := testtool.ModuleRoot()
	rep, err := exec.Command(node, filepath.Join(root, "glb", "testdata", "validate.js"), first).Output()
	if err != nil || !strings.Contains(string(rep), `"errors":0,`) {
		t.Errorf("gltf-validator: %v %s", err, rep)
	}
	out := filepath.Join(t.TempDir(), "big.glb")
	if _, err := runCLI(t, "export", "glb", "--data", data, "--bbox", "5,47,15,55", "-o", out); err == nil || !strings.Contains(errorText(err), "km2") {
		t.Errorf("a bbox over the limit: %v", err)
	}
}

// TestExportGLBEqualsHTTPRealTiles imports the real LoD2 tiles of
// ../shared/samples/real and compares the CLI and the route over each.
func TestExportGLBEqualsHTTPRealTiles(t *testing.T) {
	data := t.TempDir()
	for _, r := range []struct{ bl, file, bbox string }{
		{"nrw", "real/LoD2_32_280_5659_1_NW.gml", "5.864,51.041,5.875,51.049"},
		{"be", "real/3910_5817.gml", "13.396,52.493,13.406,52.500"},
	} {
		src := testtool.Shared(t, "samples/"+r.file)
		if text, err := runCLI(t, "import", "lod2", "--data", data, "--bl", r.bl, "--snapshot", "2026-01-01", "--license", "dl-de-zero-2.0", src); err != nil {
			t.Fatalf("import %s: %v\n%s", r.file, err, text)
		}
		base := serveData(t, data)
		for _, v := range glbVariants {
			exportEqualsHTTP(t, base, data, r.bl, r.bbox, v)
		}
	}
}

// glbVariants are query and flag forms of the same framing.
var glbVariants = []struct {
	query string
	flags []string
}{
	{"", nil},
	{"&rotate_x=-90&colorize_roofs=true", []string{"--rotate-x", "-90", "--colorize-roofs"}},
	{"&merge_buildings=false&include_ground=false", []string{"--merge-buildings=false", "--include-ground=false"}},
	{"&feature_metadata=false&compression=draco", []string{"--feature-metadata=false", "--draco"}},
}

// exportEqualsHTTP fetches the bbox's GLB from the route and from svc
// export glb and fails unless both are the same non-trivial bytes of bl;
// it returns the CLI's file.
func exportEqualsHTTP(t *testing.T, base, data, bl, bbox string, v struct {
	query string
	flags []string
}) string {
	t.Helper()
	resp, err := http.Get(base + "/v1/buildings/3d.glb?bbox=" + bbox + v.query)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(want) < 1000 {
		t.Fatalf("%s %s%s: HTTP %d, %d bytes", bl, bbox, v.query, resp.StatusCode, len(want))
	}
	out := filepath.Join(t.TempDir(), bl+".glb")
	text, err := runCLI(t, append([]string{"export", "glb", "--data", data, "--bbox", bbox, "-o", out}, v.flags...)...)
	if err != nil || !strings.Contains(text, "buildings of ["+bl+"]") {
		t.Fatalf("%s: %v\n%s", bl, err, text)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s %s%s: the CLI wrote %d bytes, HTTP answered %d; they differ", bl, bbox, v.query, len(got), len(want))
	}
	return out
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
