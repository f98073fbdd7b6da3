package tiles3d_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/tiles3d"
)

// seaTileArea is the horizontal area in m² of the triangles of every GLB
// of a sea theme, as CesiumJS would draw them.
func seaTileArea(t *testing.T, dir string) float64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.glb"))
	area := 0.0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d gltf.Document
		if err := gltf.NewDecoder(bytes.NewReader(raw)).Decode(&d); err != nil {
			t.Fatal(err)
		}
		for _, m := range d.Meshes {
			for _, p := range m.Primitives {
				pos, err := modeler.ReadPosition(&d, d.Accessors[p.Attributes[gltf.POSITION]], nil)
				if err != nil {
					t.Fatal(err)
				}
				idx, err := modeler.ReadIndices(&d, d.Accessors[*p.Indices], nil)
				if err != nil {
					t.Fatal(err)
				}
				for k := 0; k+2 < len(idx); k += 3 {
					a, b, c := pos[idx[k]], pos[idx[k+1]], pos[idx[k+2]]
					// x east, -z north, y up.
					area += math.Abs(float64(b[0]-a[0])*float64(c[2]-a[2])-float64(c[0]-a[0])*float64(b[2]-a[2])) / 2
				}
			}
		}
	}
	return area
}

// TestCutExtractSeaCover runs the whole pipeline (import dgm, import osm,
// build osm-cover) on the Helgoland sample cut by a box with osmium in each
// strategy, with a DGM larger than the cut, and measures the sea a viewer
// draws (the triangles of the sea tiles) against GEOS: the cut box less the
// islands osmium exports from the uncut coastline, within 0.2 %. Before the
// import closed coastline chains along the extract's boundary, the chains
// cut at the box's edge were dropped and the main island was drawn as sea
// (1.4 km² too much).
func TestCutExtractSeaCover(t *testing.T) {
	osmium := testtool.Require(t, "osmium", "apt-get install osmium-tool")
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	src := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
		return string(out)
	}
	const lon0, lat0, lon1, lat1 = 7.875, 54.16, 7.93996, 54.19776
	gpkg := filepath.Join(dir, "ref.gpkg")
	run(osmium, "tags-filter", "-O", "-o", filepath.Join(dir, "coast.osm.pbf"), src, "w/natural=coastline")
	run(osmium, "export", "-O", "-f", "geojsonseq", "-o", filepath.Join(dir, "coast.geojsonseq"), filepath.Join(dir, "coast.osm.pbf"))
	run(ogr2ogr, "-f", "GPKG", gpkg, filepath.Join(dir, "coast.geojsonseq"), "-t_srs", "EPSG:25832", "-nln", "coast", "-where", "OGR_GEOMETRY='MULTIPOLYGON'")
	out := run(ogrinfo, "-q", gpkg, "-dialect", "sqlite", "-sql", fmt.Sprintf("SELECT ST_Area(ST_Difference(ST_Transform(GeomFromText("+
		"'POLYGON((%[1]g %[2]g,%[3]g %[2]g,%[3]g %[4]g,%[1]g %[4]g,%[1]g %[2]g))', 4326), 25832), (SELECT ST_Union(geom) FROM coast))) AS a", lon0, lat0, lon1, lat1))
	_, v, _ := strings.Cut(out, "(Real) = ")
	want, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		t.Fatalf("GEOS sea: %v\n%s", err, out)
	}
	dgm := filepath.Join(dir, "dgm")
	os.MkdirAll(dgm, 0o755)
	synthDGM(t, dgm, lon0-0.01, lat0-0.005, lon1+0.01, lat1+0.005)
	for _, strategy := range []string{"complete_ways", "smart", "simple"} {
		t.Run(strategy, func(t *testing.T) {
			cut := filepath.Join(dir, strategy+".osm.pbf")
			run(osmium, "extract", "-O", "--set-bounds", "-s", strategy, "--bbox", fmt.Sprintf("%g,%g,%g,%g", lon0, lat0, lon1, lat1), "-o", cut, src)
			data := t.TempDir()
			c := importer.Common{DataDir: data, BL: "sh", Snapshot: "2026-11-20", LicenseID: "dl-de-by-2.0"}
			if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, []string{dgm}); err != nil {
				t.Fatal(err)
			}
			c.LicenseID = "odbl-1.0"
			if _, err := importer.OSM(context.Background(), c, cut); err != nil {
				t.Fatal(err)
			}
			if _, err := tiles3d.BuildOSMCover(context.Background(), tiles3d.OSMCoverOptions{DataDir: data, BL: "sh"}); err != nil {
				t.Fatal(err)
			}
			got := seaTileArea(t, filepath.Join(data, "osm-cover", "sh", "2026-11-20", "sea", "tiles"))
			t.Logf("sea drawn %.0f m², GEOS %.0f m²", got, want)
			if math.Abs(got-want) > 2e-3*want {
				t.Errorf("sea drawn %.0f m², GEOS %.0f m² (%+.2f %%)", got, want, 100*(got-want)/want)
			}
		})
	}
}
