package cmd

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOGCAPIDriverOpensBuildings opens the buildings collection with GDAL's
// OGCAPI driver the way GDAL itself names it (the SUBDATASET of
// `ogrinfo OGCAPI:<base>/ogc`, no open option): it lists the layer
// `buildings`, and in a small box in the demo town reads the buildings the
// LoD2 pack has there (sqlite3 on the pack's bbox index) with their gml:id,
// height and ground height as the pack stores them.
//
// With the collection's tilesets-vector link typed application/json, GDAL
// 3.6 took its tiles branch, whose vector half the CMake builds compile out
// (GDAL PR 7993, fixed in 3.7.1): the open failed without a message
// (docs/ogc-tiles.md).
func TestOGCAPIDriverOpensBuildings(t *testing.T) {
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	sqlite := testtool.Require(t, "sqlite3", "apt-get install sqlite3")
	data := demoData(t)
	base := serveData(t, data)
	src := "OGCAPI:" + base + "/ogc/collections/buildings"

	sub := toolOut(t, ogrinfo, "-ro", "-so", "OGCAPI:"+base+"/ogc")
	if !strings.Contains(sub, "SUBDATASET_1_NAME="+src+"\n") {
		t.Fatalf("GDAL does not list %s as a subdataset:\n%s", src, sub)
	}
	const w, s, e, n = 8.676, 50.112, 8.680, 50.114
	out := toolOut(t, ogrinfo, "-ro", "-q", src, "buildings", "-spat", ftoa(w), ftoa(s), ftoa(e), ftoa(n))
	if !strings.Contains(out, "Layer name: buildings") {
		t.Fatalf("GDAL lists no layer buildings:\n%.2000s", out)
	}
	type attrs struct{ height, ground float64 }
	got := map[string]attrs{}
	for _, f := range strings.Split(out, "OGRFeature(buildings):")[1:] {
		field := func(name string) string {
			m := regexp.MustCompile(`(?m)^  ` + name + ` \(\w+\) = (.*)$`).FindStringSubmatch(f)
			if m == nil {
				t.Fatalf("feature without %s:\n%s", name, f)
			}
			return m[1]
		}
		h, err1 := strconv.ParseFloat(field("height_m"), 64)
		g, err2 := strconv.ParseFloat(field("ground_z_m"), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("feature with height_m %q, ground_z_m %q", field("height_m"), field("ground_z_m"))
		}
		got[field("gmlid")] = attrs{h, g}
	}

	want := map[string]attrs{}
	for id, p := range packBuildings(t, sqlite, data, [4]float64{w, s, e, n}) {
		if p.inBox {
			want[id] = attrs{p.height, p.ground}
		}
	}
	if len(want) < 10 {
		t.Fatalf("the pack has %d buildings in the box; the test needs a town", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("GDAL reads %d buildings in the box, the pack has %d:\n got %v\nwant %v", len(got), len(want), keysOf(got), keysOf(want))
	}
	for id, a := range want {
		b, ok := got[id]
		if !ok {
			t.Fatalf("GDAL does not read %s", id)
		}
		if math.Abs(a.height-b.height) > 1e-9 || math.Abs(a.ground-b.ground) > 1e-9 {
			t.Errorf("%s: GDAL reads height %g, ground %g; the pack has %g, %g", id, b.height, b.ground, a.height, a.ground)
		}
	}
	t.Logf("%d buildings in the box, as in the pack", len(got))
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
