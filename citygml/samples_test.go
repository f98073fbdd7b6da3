package citygml

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// The real samples (read by path, never copied into the project).
const (
	sampleNW = "../../shared/samples/real/LoD2_32_280_5659_1_NW.gml"
	sampleBE = "../../shared/samples/real/3910_5817.gml"
	sampleSy = "../../shared/samples/LoD2_33_392_5820_1_BE_sample.gml"
)

// samplePath returns the sample's path, skipping when it is absent.
func samplePath(t testing.TB, p string) string {
	t.Helper()
	return testtool.Shared(t, strings.TrimPrefix(p, "../../shared/"))
}

// tally summarises a document.
type tally struct {
	buildings, parts, polygons, interiors, unresolved int
	byClass                                           map[string]int // surfaces per class
	pass                                              int            // buildings passing Validate at the default tolerance
	epsg                                              int
}

func tallyFile(t testing.TB, path string) tally {
	t.Helper()
	tl := tally{byClass: map[string]int{}}
	for _, b := range readFile(t, path) {
		tl.buildings++
		tl.parts += len(b.Parts)
		tl.unresolved += b.Unresolved
		tl.epsg = b.EPSG
		for _, s := range b.Surfaces {
			tl.byClass[s.Class.String()]++
			tl.polygons += len(s.Polygons)
			for _, p := range s.Polygons {
				tl.interiors += len(p.Interiors)
			}
		}
		if Validate(b, DefaultPlanarityTolM).OK() {
			tl.pass++
		}
	}
	return tl
}

func TestSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		path string
		want tally
	}{
		// NRW, CityGML 1.0: 1441 polygons in boundedBy; the 140 lod2Solids
		// only reference them and add none.
		{"NRW", sampleNW, tally{buildings: 109, parts: 55, polygons: 1441, epsg: 25832, pass: 100,
			byClass: map[string]int{"WallSurface": 910, "RoofSurface": 210, "GroundSurface": 140, "ClosureSurface": 107}}},
		{"Berlin", sampleBE, tally{buildings: 166, parts: 15, polygons: 3080, interiors: 2, epsg: 25833, pass: 165,
			byClass: map[string]int{"WallSurface": 532, "RoofSurface": 387, "GroundSurface": 180}}},
		{"synthetic", sampleSy, tally{buildings: 4, parts: 1, polygons: 31, epsg: 25833, pass: 4,
			byClass: map[string]int{"WallSurface": 20, "RoofSurface": 6, "GroundSurface": 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tallyFile(t, samplePath(t, tc.path))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestSamplesOgrinfo cross-checks building and building part counts with
// GDAL's GML driver.
func TestSamplesOgrinfo(t *testing.T) {
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	tpl := filepath.Join(t.TempDir(), "parts.gfs")
	err := os.WriteFile(tpl, []byte(`<GMLFeatureClassList><GMLFeatureClass><Name>BuildingPart</Name>
<ElementPath>BuildingPart</ElementPath><GeometryType>0</GeometryType></GMLFeatureClass></GMLFeatureClassList>`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	count := func(t *testing.T, args ...string) int {
		t.Helper()
		out, err := exec.Command(ogrinfo, append([]string{"-ro", "-so", "-al", "-oo", "WRITE_GFS=NO"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo: %v\n%s", err, out)
		}
		m := regexp.MustCompile(`Feature Count: (\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("no feature count in ogrinfo output:\n%s", out)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	for _, p := range []string{sampleNW, sampleBE, sampleSy} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			p := samplePath(t, p)
			got := tallyFile(t, p)
			if want := count(t, p); got.buildings != want {
				t.Errorf("buildings: citygml %d, ogrinfo %d", got.buildings, want)
			}
			if want := count(t, "-oo", "GFS_TEMPLATE="+tpl, p); got.parts != want {
				t.Errorf("building parts: citygml %d, ogrinfo %d", got.parts, want)
			}
		})
	}
}

// pyCount counts, with Python's ElementTree (an independent XML parser),
// the thematic surfaces per class that hold LoD2 polygons, their polygons
// and interior rings.
const pyCount = `
import sys, xml.etree.ElementTree as ET
B = ('{http://www.opengis.net/citygml/building/1.0}', '{http://www.opengis.net/citygml/building/2.0}')
G = '{http://www.opengis.net/gml}'
counts, polys, holes = {}, 0, 0
for ev, el in ET.iterparse(sys.argv[1]):
    tag = el.tag
    for b in B:
        if tag.startswith(b) and tag[len(b):] in ('WallSurface','RoofSurface','GroundSurface','ClosureSurface','OuterCeilingSurface','OuterFloorSurface'):
            ps = [p for m in el if m.tag.endswith('}lod2MultiSurface') for p in m.iter(G+'Polygon')]
            if ps:
                counts[tag[len(b):]] = counts.get(tag[len(b):], 0) + 1
                polys += len(ps)
                holes += sum(len(p.findall(G+'interior')) for p in ps)
for k in sorted(counts): print(k, counts[k])
print('polygons', polys)
print('interiors', holes)
`

// TestSamplesPython cross-checks surface counts per class, polygon and
// hole counts with Python's ElementTree.
func TestSamplesPython(t *testing.T) {
	python := testtool.Require(t, "python3", "apt-get install python3")
	for _, p := range []string{sampleNW, sampleBE, sampleSy} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			p := samplePath(t, p)
			out, err := exec.Command(python, "-c", pyCount, p).CombinedOutput()
			if err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			got := tallyFile(t, p)
			var lines []string
			for _, c := range []string{"ClosureSurface", "GroundSurface", "OuterCeilingSurface", "OuterFloorSurface", "RoofSurface", "WallSurface"} {
				if n := got.byClass[c]; n > 0 {
					lines = append(lines, fmt.Sprintf("%s %d", c, n))
				}
			}
			lines = append(lines, fmt.Sprintf("polygons %d", got.polygons), fmt.Sprintf("interiors %d", got.interiors))
			if want := strings.TrimSpace(string(out)); strings.Join(lines, "\n") != want {
				t.Fatalf("citygml:\n%s\nElementTree:\n%s", strings.Join(lines, "\n"), want)
			}
		})
	}
}
