package terrain

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// fixtureTile is one tile of a test pack: a grid function over a square.
type fixtureTile struct {
	name       string
	e0, n0     float64 // south-west corner, metres
	size       int     // pixels (1 m)
	f          func(e, n float64) float64
	rawCorrupt bool // write garbage instead of a COG
	url        string
}

// makeGrid samples f at pixel centres; NaN becomes nodata -9999.
func makeGrid(epsg int, e0, n0 float64, size int, f func(e, n float64) float64) raster.Grid {
	nd := Nodata
	g := raster.Grid{Width: size, Height: size, Data: make([]float32, size*size), EPSG: epsg, Nodata: &nd,
		GeoTransform: [6]float64{e0, 1, 0, n0 + float64(size), 0, -1}}
	for r := range size {
		for c := range size {
			v := f(e0+float64(c)+0.5, n0+float64(size-r)-0.5)
			if math.IsNaN(v) {
				v = Nodata
			}
			g.Data[r*size+c] = float32(v)
		}
	}
	return g
}

// makePack writes and publishes a raster pack and opens it.
func makePack(t testing.TB, data string, prod pack.Product, code, snap string, epsg int, layers map[string][]fixtureTile, cache *raster.Cache) *Dataset {
	t.Helper()
	w, err := pack.Create(data, pack.Key{Product: prod, BL: code, Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	ix := Index{EPSG: epsg, Layers: map[string][]Tile{}}
	for lname, tiles := range layers {
		if err := os.MkdirAll(filepath.Join(w.Dir(), lname), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, ft := range tiles {
			tl := Tile{Name: ft.name, BBox: [4]float64{ft.e0, ft.n0, ft.e0 + float64(ft.size), ft.n0 + float64(ft.size)}, PixelM: 1}
			if ft.url != "" {
				tl.URL = ft.url
				ix.Layers[lname] = append(ix.Layers[lname], tl)
				continue
			}
			tl.Path = lname + "/" + ft.name + ".tif"
			f, err := os.Create(filepath.Join(w.Dir(), lname, ft.name+".tif"))
			if err != nil {
				t.Fatal(err)
			}
			if ft.rawCorrupt {
				_, err = f.Write([]byte("II*\x00garbage that is no TIFF at all"))
			} else {
				err = raster.WriteCOG(f, makeGrid(epsg, ft.e0, ft.n0, ft.size, ft.f), raster.WriteOptions{})
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			ix.Layers[lname] = append(ix.Layers[lname], tl)
		}
	}
	if err := WriteIndex(filepath.Join(w.Dir(), IndexName), ix); err != nil {
		t.Fatal(err)
	}
	m := pack.Manifest{LicenseID: "dl-de-zero-2.0", CRS: "EPSG:" + strconv.Itoa(epsg)}
	switch prod {
	case pack.Terrain:
		m.Terrain = &pack.TerrainInfo{Index: IndexName, Source: "convert+storage-box"}
	case pack.Vegetation:
		m.Vegetation = &pack.VegetationInfo{Index: IndexName}
	}
	m, err = w.Commit(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenPack(context.Background(), filepath.Join(data, string(prod), code, snap), m, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// smooth is a test surface with distinct values in every pixel.
func smooth(e, n float64) float64 {
	return math.Round((100+10*math.Sin(e/37)+7*math.Cos(n/23)+0.001*(e-math.Floor(e/1000)*1000))*1000) / 1000
}

func geoLine(x, y, z float64) string {
	return strconv.FormatFloat(x, 'f', 1, 64) + " " + strconv.FormatFloat(y, 'f', 1, 64) + " " + strconv.FormatFloat(z, 'f', 3, 64) + "\n"
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
