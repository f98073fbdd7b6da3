package osmdata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// synthetic is an OSM XML extract near Kiel (UTM32) built node by node:
// a forest multipolygon of two unordered outer ways (one reversed) with a
// hole, a broken relation (a member way missing), a coastline crossing the
// extent, a primary road with width=12, a road with lanes=3, a residential
// road without either, a bridge, a tunnel, and a road running out of the
// extent.
type osmXML struct {
	b    strings.Builder
	next int64
}

func (x *osmXML) node(lon, lat float64) int64 {
	x.next++
	fmt.Fprintf(&x.b, `<node id="%d" version="1" lat="%.7f" lon="%.7f"/>`+"\n", x.next, lat, lon)
	return x.next
}

func (x *osmXML) way(id int64, nodes []int64, tags ...string) {
	fmt.Fprintf(&x.b, `<way id="%d" version="1">`, id)
	for _, n := range nodes {
		fmt.Fprintf(&x.b, `<nd ref="%d"/>`, n)
	}
	for i := 0; i+1 < len(tags); i += 2 {
		fmt.Fprintf(&x.b, `<tag k="%s" v="%s"/>`, tags[i], tags[i+1])
	}
	x.b.WriteString("</way>\n")
}

// The extent of the synthetic extract (WGS84).
var synthExtent = geo.BBox{MinLon: 10.10, MinLat: 54.30, MaxLon: 10.16, MaxLat: 54.34}

func synthetic() []byte {
	x := &osmXML{}
	x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<osm version="0.6" generator="svc test">` + "\n")
	// Forest: a 1 km x ~1.1 km square split in two ways, with a hole.
	a, b, c, d := x.node(10.11, 54.31), x.node(10.125, 54.31), x.node(10.125, 54.32), x.node(10.11, 54.32)
	h1, h2, h3, h4 := x.node(10.114, 54.313), x.node(10.118, 54.313), x.node(10.118, 54.316), x.node(10.114, 54.316)
	x.way(101, []int64{a, b, c})
	x.way(102, []int64{a, d, c}) // reversed relative to the ring
	x.way(103, []int64{h1, h2, h3, h4, h1})
	// Coastline from the west edge to the east edge, land (south) on the left.
	var coast []int64
	for i := range 8 {
		coast = append(coast, x.node(10.08+float64(i)*0.012, 54.335))
	}
	// Land on the left walking west: the line runs from east to west.
	for i, j := 0, len(coast)-1; i < j; i, j = i+1, j-1 {
		coast[i], coast[j] = coast[j], coast[i]
	}
	x.way(201, coast, "natural", "coastline")
	r1, r2, r3 := x.node(10.13, 54.305), x.node(10.14, 54.305), x.node(10.15, 54.305)
	x.way(301, []int64{r1, r2}, "highway", "primary", "width", "12", "name", "Hauptstraße")
	x.way(302, []int64{r2, r3}, "highway", "secondary", "lanes", "3")
	r4, r5 := x.node(10.13, 54.325), x.node(10.15, 54.325)
	x.way(303, []int64{r4, r5}, "highway", "residential")
	b1, b2 := x.node(10.135, 54.327), x.node(10.137, 54.327)
	x.way(304, []int64{b1, b2}, "highway", "tertiary", "bridge", "yes", "layer", "1")
	t1, t2 := x.node(10.135, 54.329), x.node(10.137, 54.329)
	x.way(305, []int64{t1, t2}, "railway", "rail", "tunnel", "yes", "layer", "-1")
	o1, o2 := x.node(10.15, 54.312), x.node(10.19, 54.312) // leaves the extent east
	x.way(306, []int64{o1, o2}, "highway", "track")
	x.b.WriteString(`<relation id="901" version="1"><member type="way" ref="101" role="outer"/><member type="way" ref="103" role="inner"/>` +
		`<member type="way" ref="102" role="outer"/><tag k="type" v="multipolygon"/><tag k="landuse" v="forest"/><tag k="name" v="Testwald"/></relation>` + "\n")
	x.b.WriteString(`<relation id="902" version="1"><member type="way" ref="101" role="outer"/><member type="way" ref="999" role="outer"/>` +
		`<tag k="type" v="multipolygon"/><tag k="natural" v="water"/></relation>` + "\n")
	x.b.WriteString("</osm>\n")
	return []byte(x.b.String())
}

func readBytes(t *testing.T, data []byte, o Options) ([]Feature, Stats, error) {
	t.Helper()
	return Read(context.Background(), func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, o)
}

func ringArea(r [][2]float64) float64 { return math.Abs(signedArea(r)) }

func TestSyntheticExtract(t *testing.T) {
	data := synthetic()
	formats := map[string][]byte{"xml": data}
	if osmium, err := exec.LookPath("osmium"); err == nil {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "s.osm"), filepath.Join(dir, "s.osm.pbf")
		os.WriteFile(in, data, 0o644)
		if o, err := exec.Command(osmium, "cat", in, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("osmium cat: %v\n%s", err, o)
		}
		formats["pbf"], _ = os.ReadFile(out)
	} else if testtool.CI() {
		t.Fatal("CI=true requires osmium (apt-get install osmium-tool) to write the PBF")
	} else {
		t.Log("osmium not found (apt-get install osmium-tool): PBF path not tested here")
	}
	for name, b := range formats {
		t.Run(name, func(t *testing.T) {
			feats, st, err := readBytes(t, b, Options{Zone: geo.Zone32, Clip: synthExtent, XML: name == "xml"})
			if err != nil {
				t.Fatal(err)
			}
			byID := map[int64]Feature{}
			for _, f := range feats {
				byID[f.ID] = f
			}
			if st.SkippedRelations != 1 {
				t.Errorf("skipped relations %d, want 1 (the one missing way 999)", st.SkippedRelations)
			}
			forest := byID[901]
			if forest.Class != "forest" || forest.Name != "Testwald" || len(forest.Polygons) != 1 || len(forest.Polygons[0]) != 2 {
				t.Fatalf("forest: %+v", forest)
			}
			outer, hole := forest.Polygons[0][0], forest.Polygons[0][1]
			if !pointInRing(hole[0], outer) {
				t.Error("the hole is not inside the outer ring")
			}
			// Expected areas from the corners projected directly.
			sq := func(lon0, lat0, lon1, lat1 float64) float64 {
				var r [][2]float64
				for _, p := range [][2]float64{{lon0, lat0}, {lon1, lat0}, {lon1, lat1}, {lon0, lat1}, {lon0, lat0}} {
					x, y := geo.ToUTM(geo.Zone32, p[0], p[1])
					r = append(r, [2]float64{x, y})
				}
				return ringArea(r)
			}
			if got, want := ringArea(outer)-ringArea(hole), sq(10.11, 54.31, 10.125, 54.32)-sq(10.114, 54.313, 10.118, 54.316); math.Abs(got-want) > 1e-6*want {
				t.Errorf("forest area %.1f m², want %.1f", got, want)
			}
			for id, w := range map[int64]float64{301: 12, 302: 3 * laneWidth, 303: 5.5, 304: 6} {
				if f := byID[id]; f.WidthM != w {
					t.Errorf("way %d width %g, want %g", id, f.WidthM, w)
				}
			}
			if f := byID[304]; !f.Bridge || f.Layer != 1 {
				t.Errorf("bridge: %+v", f)
			}
			if f := byID[305]; !f.Tunnel || f.Class != "railway:rail" {
				t.Errorf("tunnel: %+v", f)
			}
			box := clipBox(synthExtent, geo.Zone32)
			if f := byID[306]; len(f.Lines) != 1 || math.Abs(f.Lines[0][1][0]-box.MaxX) > 1e-6 {
				t.Errorf("track leaving the extent not clipped at its edge: %+v", f.Lines)
			}
			coast := byID[201]
			if coast.Theme != ThemeCoastline || len(coast.Lines) != 1 || !box.onEdge(coast.Lines[0][0]) || !box.onEdge(coast.Lines[0][len(coast.Lines[0])-1]) {
				t.Fatalf("coastline: %+v", coast.Lines)
			}
			// The sea is north of the coastline (land on the left of the
			// westward line): the strip between it and the north edge.
			seas := SeaPolygons(coast.Lines, *box)
			if len(seas) != 1 {
				t.Fatalf("%d sea polygons", len(seas))
			}
			_, yCoast := geo.ToUTM(geo.Zone32, 10.13, 54.335)
			want := (box.MaxX - box.MinX) * (box.MaxY - yCoast)
			if got := ringArea(seas[0][0]); math.Abs(got-want) > 0.01*want {
				t.Errorf("sea %.0f m², want about %.0f", got, want)
			}
		})
	}
}

// TestBadInput: each broken file gives its error, none a panic.
func TestBadInput(t *testing.T) {
	good := synthetic()
	only := []byte(`<?xml version="1.0"?><osm version="0.6"><node id="1" lat="54.3" lon="10.1"/></osm>`)
	for _, tc := range []struct {
		name string
		data []byte
		xml  bool
		clip geo.BBox
		want error
	}{
		{"not PBF", []byte("hello, world, this is not a protobuf"), false, geo.BBox{}, ErrFormat},
		{"truncated XML", good[:len(good)/2], true, geo.BBox{}, ErrFormat},
		{"only nodes", only, true, geo.BBox{}, ErrEmpty},
		{"outside the extent", good, true, geo.BBox{MinLon: 6, MinLat: 50, MaxLon: 6.1, MaxLat: 50.1}, ErrOutside},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readBytes(t, tc.data, Options{Zone: geo.Zone32, XML: tc.xml, Clip: tc.clip})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func readSample(t *testing.T, name string) ([]Feature, Stats) {
	t.Helper()
	path := testtool.Shared(t, "samples/osm/"+name)
	feats, st, err := Read(context.Background(), func() (io.ReadCloser, error) { return os.Open(path) }, Options{Zone: geo.Zone32})
	if err != nil {
		t.Fatal(err)
	}
	return feats, st
}

// TestHelgolandAgainstOsmium checks the transport classes against osmium
// (ways with the tag, less those tagged area=yes) and the coastline, and
// that the sea around the islands is the extent less the islands.
func TestHelgolandAgainstOsmium(t *testing.T) {
	osmium := testtool.Require(t, "osmium", "apt-get install osmium-tool")
	path := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	feats, st := readSample(t, "helgoland.osm.pbf")
	dir := t.TempDir()
	count := func(file, tag string) int {
		out, err := exec.Command(osmium, "tags-count", "-t", "way", file, tag).Output()
		if err != nil {
			t.Fatalf("osmium tags-count: %v", err)
		}
		n := 0
		if f := strings.Fields(string(out)); len(f) > 0 {
			n, _ = strconv.Atoi(f[0])
		}
		return n
	}
	for _, c := range []string{"footway", "path", "steps", "service", "pedestrian", "track"} {
		sub := filepath.Join(dir, c+".osm.pbf")
		if o, err := exec.Command(osmium, "tags-filter", "-O", "-o", sub, path, "w/highway="+c).CombinedOutput(); err != nil {
			t.Fatalf("osmium tags-filter: %v\n%s", err, o)
		}
		want := count(sub, "highway="+c) - count(sub, "area=yes")
		if got := st.Features["transport/highway:"+c]; got != want {
			t.Errorf("highway=%s: %d features, osmium %d", c, got, want)
		}
	}
	if got, want := st.Features["coastline/coastline"], count(path, "natural=coastline"); got != want || want == 0 {
		t.Errorf("coastline: %d, osmium %d", got, want)
	}
	var coast [][][2]float64
	for _, f := range feats {
		if f.Theme == ThemeCoastline {
			coast = append(coast, f.Lines...)
		}
	}
	box := *clipBox(geo.BBox{MinLon: 7.85, MinLat: 54.16, MaxLon: 7.95, MaxLat: 54.2}, geo.Zone32)
	seas := SeaPolygons(coast, box)
	if len(seas) != 1 || len(seas[0]) < 3 {
		t.Fatalf("sea: %d polygons, the first with %d rings (want the extent with the islands as holes)", len(seas), len(seas[0]))
	}
	islands := 0.0
	for _, h := range seas[0][1:] {
		islands += ringArea(h)
	}
	// Helgoland and its Düne: about 1.7 km² of land.
	if islands < 1.2e6 || islands > 2.5e6 {
		t.Errorf("islands %.2f km²", islands/1e6)
	}
	if got, want := ringArea(seas[0][0])-islands, (box.MaxX-box.MinX)*(box.MaxY-box.MinY)-islands; math.Abs(got-want) > 1 {
		t.Errorf("sea %.0f m², want %.0f", got, want)
	}
}

// TestAreasAgainstGDAL compares the areas of classes with GDAL's OSM
// driver (its multipolygons layer, projected to UTM32 by ogr2ogr): counts
// equal, areas within 1 %.
func TestAreasAgainstGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	path := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	feats, _ := readSample(t, "helgoland.osm.pbf")
	gpkg := filepath.Join(t.TempDir(), "h.gpkg")
	if o, err := exec.Command(ogr2ogr, "-f", "GPKG", gpkg, path, "multipolygons", "-t_srs", "EPSG:25832", "-nln", "mp").CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v\n%s", err, o)
	}
	for _, tc := range []struct{ class, where string }{
		{"forest", `landuse='forest' OR "natural"='wood'`},
		{"beach", `"natural" IN ('beach','sand')`},
	} {
		out, err := exec.Command(ogrinfo, "-q", gpkg, "-dialect", "sqlite", "-sql",
			"SELECT SUM(ST_Area(geom)) AS a, COUNT(*) AS n FROM mp WHERE "+tc.where).Output()
		if err != nil {
			t.Fatalf("ogrinfo: %v", err)
		}
		var wantA float64
		var wantN int
		for _, l := range strings.Split(string(out), "\n") {
			l = strings.TrimSpace(l)
			if v, ok := strings.CutPrefix(l, "a (Real) = "); ok {
				wantA, _ = strconv.ParseFloat(v, 64)
			}
			if v, ok := strings.CutPrefix(l, "n (Integer) = "); ok {
				wantN, _ = strconv.Atoi(v)
			}
		}
		gotA, gotN := 0.0, 0
		for _, f := range feats {
			if f.Theme == ThemeSurface && f.Class == tc.class {
				gotN++
				for _, p := range f.Polygons {
					gotA += ringArea(p[0])
					for _, h := range p[1:] {
						gotA -= ringArea(h)
					}
				}
			}
		}
		t.Logf("%s: %d features, %.0f m²; GDAL %d, %.0f m²", tc.class, gotN, gotA, wantN, wantA)
		if gotN != wantN || wantA == 0 || math.Abs(gotA-wantA) > 0.01*wantA {
			t.Errorf("%s: %d features %.0f m², GDAL %d features %.0f m²", tc.class, gotN, gotA, wantN, wantA)
		}
	}
}

// TestLaufEdges: a bounding-box cut keeps going: relations with missing
// members are skipped and counted, cut lines keep their pieces.
func TestLaufEdges(t *testing.T) {
	feats, st := readSample(t, "lauf-200115.osm.pbf")
	if st.SkippedRelations == 0 || st.SkippedWays == 0 || len(feats) < 3000 {
		t.Fatalf("%d features, stats %+v", len(feats), st)
	}
	if st.Features["transport/railway:rail"] == 0 || st.Features["surface/forest"] == 0 || st.Features["surface/parking"] < 200 {
		t.Errorf("classes: %v", st.Features)
	}
}

func TestClip(t *testing.T) {
	b := Box{0, 0, 10, 10}
	sq := [][2]float64{{-5, -5}, {5, -5}, {5, 5}, {-5, 5}, {-5, -5}}
	if r := b.Ring(sq); math.Abs(ringArea(r)-25) > 1e-9 {
		t.Errorf("clipped square area %g, want 25: %v", ringArea(r), r)
	}
	if r := b.Ring([][2]float64{{20, 20}, {30, 20}, {30, 30}, {20, 20}}); r != nil {
		t.Errorf("outside ring kept: %v", r)
	}
	lines := b.Line([][2]float64{{-5, 5}, {5, 5}, {15, 5}, {15, 8}, {5, 8}})
	if len(lines) != 2 || lines[0][0] != [2]float64{0, 5} || lines[0][len(lines[0])-1] != [2]float64{10, 5} || lines[1][0] != [2]float64{10, 8} {
		t.Errorf("clipped line %v", lines)
	}
}

// FuzzRead: no input makes the reader panic or hang; every accepted
// feature has geometry.
func FuzzRead(f *testing.F) {
	f.Add(synthetic(), true)
	f.Add([]byte(`<osm><way id="1"><nd ref="1"/></way></osm>`), true)
	f.Add([]byte{0, 0, 0, 13, 10, 9, 'O', 'S', 'M', 'H', 'e', 'a', 'd', 'e', 'r'}, false)
	f.Fuzz(func(t *testing.T, data []byte, xml bool) {
		feats, _, err := Read(context.Background(), func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
			Options{Zone: geo.Zone32, XML: xml})
		if err != nil {
			return
		}
		for _, ft := range feats {
			if len(ft.Polygons) == 0 && len(ft.Lines) == 0 {
				t.Fatalf("feature %d without geometry", ft.ID)
			}
		}
	})
}
