package cmd

import (
	"bytes"
	"flag"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/solar"
)

var updateSolar = flag.Bool("update-solar", false, "rewrite testdata/solar_route.golden from the running code")

// solarSampleSite is the climate site of the solar tests on the real NRW
// sample: the first vertex of the first roof, rounded to 0.001°, as
// TestSolarRoute derives it.
func solarSampleSite(t *testing.T, base string, ids []string) solar.Site {
	t.Helper()
	var roof struct {
		Features []struct {
			Geometry struct{ Coordinates [][][3]float64 }
		}
	}
	for _, id := range ids {
		getStatusJSON(t, base+"/v1/buildings/"+id+"/roof", 200, &roof)
		if len(roof.Features) > 0 {
			break
		}
	}
	p := roof.Features[0].Geometry.Coordinates[0][0]
	return solar.Site{LatDeg: math.Round(p[1]*1000) / 1000, LonDeg: math.Round(p[0]*1000) / 1000, ElevationM: 60}
}

// goldenSolarIDs are the sample buildings of the golden answers: every
// tenth, so the test stays short on a loaded machine.
func goldenSolarIDs(ids []string) []string {
	var out []string
	for i := 0; i < len(ids); i += 10 {
		out = append(out, ids[i])
	}
	return out
}

// TestSolarRouteGolden: the on-demand answers of GET
// /v1/buildings/{gmlid}/solar on the real NRW sample with its synthetic
// DGM and a constructed TMY are byte for byte those of testdata/
// solar_route.golden, written by the route before its computation moved
// out of the HTTP layer (package roofsolar), and end with "computed":
// "on_demand" (a member added since). -update-solar rewrites it.
func TestSolarRouteGolden(t *testing.T) {
	data, ids := nrwSample(t)
	sampleDGM(t, data)
	site := solarSampleSite(t, serveData(t, data), ids)
	base := serveData(t, data, "--irradiance", tmyCSV(t, site))
	var got bytes.Buffer
	for _, id := range goldenSolarIDs(ids) {
		res, err := http.Get(base + "/v1/buildings/" + id + "/solar")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", id, res.StatusCode, body)
		}
		// The answer says how it was computed in a last member the
		// golden answers predate.
		body, ok := bytes.CutSuffix(body, []byte(`,"computed":"on_demand"}`+"\n"))
		if !ok {
			t.Fatalf("%s: the answer does not end with \"computed\": \"on_demand\": %s", id, firstDiff(body[max(0, len(body)-80):], nil))
		}
		got.Write(body)
		got.WriteString("}\n")
	}
	golden := filepath.Join("testdata", "solar_route.golden")
	if *updateSolar {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update-solar to write it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		gl, wl := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("answer %d differs from the golden one:\n got  %s\n want %s", i, firstDiff(gl[i], wl[i]), firstDiff(wl[i], gl[i]))
			}
		}
		t.Fatalf("%d answers, golden %d", len(gl), len(wl))
	}
}

// firstDiff is a's text around its first difference from b.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo, hi := max(0, i-60), min(len(a), i+60)
	return string(a[lo:hi])
}
