package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// xyzTile returns a 20 x 20 m XYZ tile at e0, n0 with value e-e0+n/1000.
func xyzTile(e0, n0 float64) []byte {
	var b bytes.Buffer
	for r := range 20 {
		for c := range 20 {
			fmt.Fprintf(&b, "%.1f;%.1f;%.3f\n", e0+float64(c)+0.5, n0+float64(r)+0.5, float64(c)+float64(r)/1000)
		}
	}
	return b.Bytes()
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDGMInputs(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "dgm1_32_477_5551.xyz"), xyzTile(477000, 5551000))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(xyzTile(477020, 5551000))
	zw.Close()
	writeFile(t, filepath.Join(src, "dgm1_32_477b_5551.xyz.gz"), gz.Bytes())
	var zb bytes.Buffer
	zz := zip.NewWriter(&zb)
	w, _ := zz.Create("inner/dgm1_32_477c_5551.txt")
	w.Write(xyzTile(477040, 5551000))
	zz.Close()
	writeFile(t, filepath.Join(src, "tiles.zip"), zb.Bytes())
	data := t.TempDir()
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	m, err := DGM(context.Background(), c, DGMOptions{}, []string{src})
	if err != nil {
		t.Fatal(err)
	}
	if m.Terrain.TileCount != 3 || m.Terrain.Source != "convert+storage-box" || m.CRS != "EPSG:25832" || len(m.BBoxWGS84) != 4 {
		t.Fatalf("manifest %+v %+v", m, m.Terrain)
	}
	d, err := terrain.OpenPack(context.Background(), filepath.Join(data, "terrain", "he", "2026-07-20"), m, terrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, tc := range []struct {
		e    float64
		tile string
	}{{477005.5, "dgm1_32_477_5551"}, {477025.5, "dgm1_32_477b_5551"}, {477045.5, "dgm1_32_477c_5551"}} {
		v, i, err := d.Layer(terrain.LayerDGM).Sample(context.Background(), tc.e, 5551003.5)
		if err != nil || v != float64(float32(5+0.003)) || d.Layer(terrain.LayerDGM).Tiles()[i].Name != tc.tile {
			t.Errorf("e=%v: %v tile %d %v", tc.e, v, i, err)
		}
	}
	// Mirror keeps the converted COGs byte for byte.
	mirrorSrc := filepath.Join(data, "terrain", "he", "2026-07-20", "tiles")
	mm, err := DGM(context.Background(), Common{DataDir: data, BL: "he", Snapshot: "2026-07-16", LicenseID: "dl-de-zero-2.0"},
		DGMOptions{Mode: ModeMirror}, []string{mirrorSrc})
	if err != nil || mm.Terrain.Source != "mirror" {
		t.Fatalf("mirror: %v", err)
	}
	a, _ := os.ReadFile(filepath.Join(mirrorSrc, "dgm1_32_477_5551.tif"))
	b, _ := os.ReadFile(filepath.Join(data, "terrain", "he", "2026-07-16", "tiles", "dgm1_32_477_5551.tif"))
	if !bytes.Equal(a, b) {
		t.Error("mirror changed the COG")
	}
}

func TestDGMErrors(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "bad.xyz"), []byte("1 2 3\n4 5\n"))
	writeFile(t, filepath.Join(src, "a.xyz"), xyzTile(0, 0))
	sub := filepath.Join(src, "sub")
	os.Mkdir(sub, 0o755)
	writeFile(t, filepath.Join(sub, "a.xyz"), xyzTile(100, 0))
	writeFile(t, filepath.Join(src, "notes.pdf"), []byte("x"))
	var tif bytes.Buffer
	nd := -9999.0
	if err := raster.WriteCOG(&tif, raster.Grid{Width: 4, Height: 4, Data: make([]float32, 16), EPSG: 25833, Nodata: &nd,
		GeoTransform: [6]float64{0, 1, 0, 4, 0, -1}}, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "utm33.tif"), tif.Bytes())
	data := t.TempDir()
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	for _, tc := range []struct {
		name  string
		o     DGMOptions
		paths []string
		want  string
	}{
		{"bad xyz names file and line", DGMOptions{}, []string{filepath.Join(src, "bad.xyz")}, "bad.xyz:2"},
		{"duplicate tile names", DGMOptions{}, []string{filepath.Join(src, "a.xyz"), sub}, "same tile name"},
		{"unknown file type", DGMOptions{}, []string{filepath.Join(src, "notes.pdf")}, "is not a GeoTIFF"},
		{"CRS mismatch", DGMOptions{}, []string{filepath.Join(src, "utm33.tif")}, "EPSG:25833"},
		{"mirror of XYZ", DGMOptions{Mode: ModeMirror}, []string{filepath.Join(src, "a.xyz")}, "--mode convert"},
		{"bad mode", DGMOptions{Mode: "copy"}, []string{filepath.Join(src, "a.xyz")}, "mode"},
		{"bad crs", DGMOptions{CRS: "EPSG:4326"}, []string{filepath.Join(src, "a.xyz")}, "EPSG:4326"},
		{"pass-through of a file", DGMOptions{Mode: ModePassThrough}, []string{filepath.Join(src, "a.xyz")}, "URLs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DGM(context.Background(), c, tc.o, tc.paths)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(data, "terrain", "he", "2026-07-20")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed import left a pack: %v", err)
	}
}

// TestDGMConvertIsCOG runs GDAL's COG validator on a converted tile.
func TestDGMConvertIsCOG(t *testing.T) {
	testtool.Require(t, "gdalinfo", "apt-get install gdal-bin python3-gdal")
	py := "/usr/bin/python3" // Debian's interpreter, which has the osgeo bindings
	script := "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py"
	if _, err := os.Stat(script); err != nil {
		script = "/usr/share/doc/python3-gdal/examples/validate_cloud_optimized_geotiff.py"
	}
	if _, err := os.Stat(script); err != nil {
		t.Skip("validate_cloud_optimized_geotiff.py not found (apt-get install python3-gdal)")
	}
	src := t.TempDir()
	var b bytes.Buffer
	for r := range 700 {
		for c := range 700 {
			fmt.Fprintf(&b, "%d.5 %d.5 %d\n", 477000+c, 5551000+r, (r*c)%997)
		}
	}
	writeFile(t, filepath.Join(src, "big.xyz"), b.Bytes())
	data := t.TempDir()
	if _, err := DGM(context.Background(), Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"},
		DGMOptions{}, []string{src}); err != nil {
		t.Fatal(err)
	}
	tif := filepath.Join(data, string(pack.Terrain), "he", "2026-07-20", "tiles", "big.tif")
	if out, err := exec.Command(py, script, tif).CombinedOutput(); err != nil {
		t.Fatalf("validator: %v\n%s", err, out)
	}
}

func TestVegetationImport(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "cdsm_1.xyz"), xyzTile(391000, 5819000)) // Berlin, EPSG:25833
	writeFile(t, filepath.Join(src, "tdsm_1.xyz"), xyzTile(391000, 5819000))
	data := t.TempDir()
	c := Common{DataDir: data, BL: "be", Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0"}
	if _, err := Vegetation(context.Background(), c, VegetationOptions{}); err == nil {
		t.Error("no CDSM accepted")
	}
	m, err := Vegetation(context.Background(), c, VegetationOptions{CDSM: []string{filepath.Join(src, "cdsm_1.xyz")},
		TDSM: []string{filepath.Join(src, "tdsm_1.xyz")}})
	if err != nil {
		t.Fatal(err)
	}
	if m.CRS != "EPSG:25833" || len(m.Vegetation.Themes) != 4 || m.Vegetation.Themes[0].Name != "cdsm" ||
		m.Vegetation.Themes[1].Path != "tdsm/" || m.Vegetation.Themes[2].Path != "trees/tileset.json" ||
		m.Vegetation.Themes[3].Name != "plantcover" || m.Vegetation.TileSizeM != 20 || !m.Has("cdsm/cdsm_1.tif") ||
		!m.Has("plantcover/tileset.json") || m.Vegetation.BridgeMask {
		t.Errorf("manifest %+v", m.Vegetation)
	}
}
