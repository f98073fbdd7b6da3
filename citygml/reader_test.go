package citygml

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// readAll reads every building of the document in data.
func readAll(t testing.TB, data []byte, name string) []*Building {
	t.Helper()
	r := NewReader(bytes.NewReader(data), name)
	var out []*Building
	for {
		b, err := r.Next()
		if err == io.EOF {
			if got := r.Offset(); got != int64(len(data)) {
				t.Fatalf("%s: Offset() = %d at EOF, want %d", name, got, len(data))
			}
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, b)
	}
}

func readFile(t testing.TB, path string) []*Building {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, data, filepath.Base(path))
}

// goldenView is the JSON form of a building in the golden files.
type goldenView struct {
	ID         string
	EPSG       int
	Line       int
	Parts      []string `json:",omitempty"`
	Unresolved int      `json:",omitempty"`
	Surfaces   []goldenSurface
}

type goldenSurface struct {
	ID, OwnerID, Class string
	Polygons           []Polygon
}

// goldenJSON writes one line per building header and one per surface, so
// that a diff points at the surface that changed.
func goldenJSON(bs []goldenView) ([]byte, error) {
	var buf bytes.Buffer
	for _, b := range bs {
		surfs := b.Surfaces
		b.Surfaces = nil
		for i, v := range append([]any{b}, anySlice(surfs)...) {
			line, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				buf.WriteString("  ")
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

func anySlice(s []goldenSurface) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

func toGolden(bs []*Building) []goldenView {
	out := make([]goldenView, 0, len(bs))
	for _, b := range bs {
		g := goldenView{ID: b.ID, EPSG: b.EPSG, Line: b.Line, Parts: b.Parts, Unresolved: b.Unresolved}
		for _, s := range b.Surfaces {
			g.Surfaces = append(g.Surfaces, goldenSurface{s.ID, s.OwnerID, s.Class.String(), s.Polygons})
		}
		out = append(out, g)
	}
	return out
}

// TestReaderGolden compares each testdata/*.gml with its .json golden file.
func TestReaderGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.gml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got, err := goldenJSON(toGolden(readFile(t, f)))
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".gml") + ".json"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			want = bytes.TrimSpace(want)
			if !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(gl) || i < len(wl); i++ {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("golden line %d: got %q, want %q", i+1, g, w)
					}
				}
			}
		})
	}
}

// classes returns the surface classes in order.
func classes(b *Building) string {
	var s []string
	for _, x := range b.Surfaces {
		s = append(s, x.Class.String())
	}
	return strings.Join(s, ",")
}

func TestReaderFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		check func(t *testing.T, bs []*Building)
	}{
		{"parts, hole, CDATA, OrientableSurface, compound srsName", "v2_parts.gml", func(t *testing.T, bs []*Building) {
			if len(bs) != 1 {
				t.Fatalf("%d buildings, want 1", len(bs))
			}
			b := bs[0]
			if b.ID != "DEBY_LOD2_4906972" || b.EPSG != 25832 || b.Line != 13 {
				t.Errorf("ID, EPSG, Line = %q, %d, %d", b.ID, b.EPSG, b.Line)
			}
			if fmt.Sprint(b.Parts) != "[DEHE062000013OfY]" {
				t.Errorf("Parts = %v", b.Parts)
			}
			if got := classes(b); got != "GroundSurface,RoofSurface,OuterCeilingSurface,Unclassified,Unclassified" {
				t.Errorf("classes = %s", got)
			}
			if n := len(b.Surfaces[0].Polygons[0].Interiors); n != 1 {
				t.Errorf("ground interiors = %d, want 1", n)
			}
			if n := len(b.Surfaces[1].Polygons); n != 2 {
				t.Errorf("roof polygons = %d, want 2 (one from CDATA)", n)
			}
			un := b.Surfaces[4]
			if un.ID != "part_poly2" || un.OwnerID != "DEHE062000013OfY" {
				t.Errorf("unclassified = %q owned by %q", un.ID, un.OwnerID)
			}
			if got := un.Polygons[0].Exterior[1]; got != (Point{690030, 5330010, 510}) {
				t.Errorf("orientation=\"-\" ring point 1 = %v, want reversed ring", got)
			}
			if c := b.Surfaces[0].Class.Code(); c != 710 {
				t.Errorf("ground code = %d", c)
			}
		}},
		{"CityGML 1.0, xlinks, pos, no ids", "v1_xlink.gml", func(t *testing.T, bs []*Building) {
			if len(bs) != 2 {
				t.Fatalf("%d buildings, want 2", len(bs))
			}
			b := bs[0]
			if b.ID != "DENW49AL0000LI95" || b.EPSG != 25832 || b.Unresolved != 0 {
				t.Errorf("ID, EPSG, Unresolved = %q, %d, %d", b.ID, b.EPSG, b.Unresolved)
			}
			if got := classes(b); got != "RoofSurface,WallSurface,GroundSurface,ClosureSurface" {
				t.Errorf("classes = %s (solid xlinks must not add polygons)", got)
			}
			ids := []string{"roof_1", "UUID_7f5cffe5-f0ed-4fac-bc57-abe8db0c9df3", "ground_1", "closure_1"}
			for i, want := range ids {
				if got := b.Surfaces[i].ID; got != want {
					t.Errorf("surface %d ID = %q, want %q", i, got, want)
				}
			}
			if n := len(b.Surfaces[0].Polygons[0].Exterior); n != 5 {
				t.Errorf("gml:pos ring has %d points, want 5", n)
			}
			if n := len(b.Surfaces[1].Polygons); n != 1 {
				t.Errorf("wall polygons = %d, want 1 (window skipped)", n)
			}
			b = bs[1]
			if b.ID != "UUID_d281adfc-4901-0f52-540b-4cc1a9325f82" || classes(b) != "Unclassified" || b.Surfaces[0].ID != "flat_1" || b.Unresolved != 1 {
				t.Errorf("building 2: %q %s", b.ID, classes(b))
			}
		}},
		{"2D posList, coordinates, entity in id, srsName on geometry", "v2_2d.gml", func(t *testing.T, bs []*Building) {
			if len(bs) != 2 {
				t.Fatalf("%d buildings, want 2", len(bs))
			}
			b := bs[0]
			if b.ID != "DEBE_2D&1" || b.EPSG != 25833 {
				t.Errorf("ID, EPSG = %q, %d", b.ID, b.EPSG)
			}
			p := b.Surfaces[0].Polygons
			if len(p) != 2 || len(p[0].Exterior) != 4 || len(p[1].Exterior) != 4 {
				t.Fatalf("polygons = %v", p)
			}
			if p[0].Exterior[2] != (Point{392010, 5820010, 0}) || p[1].Exterior[2] != (Point{392000, 5820010, 0}) {
				t.Errorf("2D points = %v, %v (want z = 0)", p[0].Exterior[2], p[1].Exterior[2])
			}
			if bs[1].EPSG != 25833 || bs[1].Surfaces[0].ID != "" {
				t.Errorf("building 2 EPSG %d, surface id %q", bs[1].EPSG, bs[1].Surfaces[0].ID)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.check(t, readFile(t, filepath.Join("testdata", tc.file)))
		})
	}
}

func TestParseSRS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"urn:adv:crs:ETRS89_UTM32*DE_DHHN2016_NH", 25832},
		{"urn:adv:crs:ETRS89_UTM33*DE_DHHN92_NH", 25833},
		{"urn:adv:crs:ETRS89_UTM32*DE_DHHN2016_NH*GCG2016", 25832},
		{"EPSG:25833", 25833},
		{"epsg:25832", 25832},
		{"urn:ogc:def:crs:EPSG::25832", 25832},
		{"urn:ogc:def:crs:EPSG:6.12:25833", 25833},
		{"urn:ogc:def:crs,crs:EPSG::25832,crs:EPSG::7837", 25832},
		{"urn:ogc:def:crs,crs:EPSG::25833,crs:EPSG::5783", 25833},
		{"http://www.opengis.net/def/crs/EPSG/0/25832", 25832},
		{"http://www.opengis.net/gml/srs/epsg.xml#25833", 25833},
		{"EPSG:5555", 25832},
		{"EPSG:31467", 0},
		{"urn:adv:crs:DE_DHDN_3GK3*DE_DHHN92_NH", 0},
		{"urn:ogc:def:crs,crs:EPSG::31468,crs:EPSG::5783", 0},
		{"urn:ogc:def:crs,crs:EPSG::25832,crs:EPSG::25833", 0},
		{"EPSG:4326", 0},
		{"", 0},
		{"EPSG:", 0},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSRS(tc.in)
			if tc.want == 0 {
				if !errors.Is(err, ErrUnknownCRS) {
					t.Fatalf("ParseSRS(%q) = %d, %v; want ErrUnknownCRS", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseSRS(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestClassCode(t *testing.T) {
	t.Parallel()
	want := map[Class]int{Wall: 709, Ground: 710, Roof: 712, Closure: 0, OuterCeiling: 0, OuterFloor: 0, Unclassified: 0}
	for c, code := range want {
		if got := c.Code(); got != code {
			t.Errorf("%v.Code() = %d, want %d", c, got, code)
		}
	}
}

func TestReaderVariants(t *testing.T) {
	t.Parallel()
	ring := `<gml:posList>0 0 0 1 0 0 1 1 0 0 0 0</gml:posList>`
	bldg := func(ns string) string {
		return `<bldg:Building ` + ns + ` gml:id="X"><bldg:boundedBy><bldg:WallSurface><bldg:lod2MultiSurface><gml:MultiSurface srsName="EPSG:25832">` +
			`<gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing>` + ring +
			`</gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface></bldg:lod2MultiSurface></bldg:WallSurface></bldg:boundedBy></bldg:Building>`
	}
	const ns2 = `xmlns:bldg="http://www.opengis.net/citygml/building/2.0" xmlns:gml="http://www.opengis.net/gml"`
	tests := []struct {
		name   string
		in     string
		points int // points of the first building; -1 for no building
	}{
		{"UTF-8 BOM", "\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<CityModel " + ns2 + ">" + bldg("") + "</CityModel>", 4},
		{"WFS wrapper root", `<wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs/2.0" ` + ns2 + `><wfs:member>` + bldg("") + `</wfs:member></wfs:FeatureCollection>`, 4},
		{"GML 3.2 namespace", `<CityModel xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:bldg="http://www.opengis.net/citygml/building/2.0">` + bldg("") + `</CityModel>`, 4},
		{"prefix declared on the building", `<CityModel>` + bldg(ns2) + `</CityModel>`, 4},
		{"comment splits a number", `<CityModel ` + ns2 + `>` + strings.Replace(bldg(""), "1 1 0", "1<!-- c -->1 1 0", 1) + `</CityModel>`, 4},
		{"entity in posList", `<CityModel ` + ns2 + `>` + strings.Replace(bldg(""), "1 1 0", "1&#32;1 0", 1) + `</CityModel>`, 4},
		{"other namespace is not a building", `<CityModel xmlns:bldg="urn:other" xmlns:gml="http://www.opengis.net/gml">` + bldg("") + `</CityModel>`, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bs := readAll(t, []byte(tc.in), "v.gml")
			if tc.points < 0 {
				if len(bs) != 0 {
					t.Fatalf("%d buildings, want none", len(bs))
				}
				return
			}
			if len(bs) != 1 || len(bs[0].Surfaces) != 1 || len(bs[0].Surfaces[0].Polygons[0].Exterior) != tc.points || bs[0].EPSG != 25832 {
				t.Fatalf("buildings %+v", bs)
			}
		})
	}
}
