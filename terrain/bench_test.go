package terrain

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

func benchPack(b *testing.B) *Dataset {
	b.Helper()
	return makePack(b, b.TempDir(), pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "a", e0: 477000, n0: 5551000, size: 1000, f: smooth}, {name: "b", e0: 478000, n0: 5551000, size: 1000, f: smooth}},
	}, raster.NewCache(256<<20))
}

// BenchmarkElevation samples random WGS84 points over two warm 1 km tiles:
// projection, routing, edge rule and pixel read.
func BenchmarkElevation(b *testing.B) {
	d := benchPack(b)
	ds := []*Dataset{d}
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([]geo.LonLat, 1000)
	for i := range pts {
		pts[i].Lon, pts[i].Lat = geo.FromUTM(geo.Zone32, 477000+rng.Float64()*2000, 5551000+rng.Float64()*1000)
	}
	ctx := context.Background()
	for _, p := range pts { // warm the cache
		if _, err := Elevation(ctx, ds, p.Lon, p.Lat); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pts {
			_, _ = Elevation(ctx, ds, p.Lon, p.Lat)
		}
	}
	b.ReportMetric(float64(b.N*len(pts))/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkProfile2000 is a warm 2,000-sample profile across both tiles.
func BenchmarkProfile2000(b *testing.B) {
	d := benchPack(b)
	ds := []*Dataset{d}
	var a, z geo.LonLat
	a.Lon, a.Lat = geo.FromUTM(geo.Zone32, 477010, 5551010)
	z.Lon, z.Lat = geo.FromUTM(geo.Zone32, 478990, 5551990)
	ctx := context.Background()
	if _, err := ProfileAlong(ctx, ds, []geo.LonLat{a, z}, 2000, Nearest); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ProfileAlong(ctx, ds, []geo.LonLat{a, z}, 2000, Nearest); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/profile")
}

// BenchmarkReadXYZ parses a 1 km DGM1 tile of XYZ text (1M points).
func BenchmarkReadXYZ(b *testing.B) {
	var buf []byte
	for r := range 1000 {
		for c := range 1000 {
			buf = append(buf, []byte(geoLine(477000.5+float64(c), 5551000.5+float64(r), smooth(float64(c), float64(r))))...)
		}
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadXYZ(bytesReader(buf), "b.xyz", XYZOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkElevationBatch10k is one warm 10,000-point batch (issue 12:
// at least 1 M points/s in process), per interpolation method.
func BenchmarkElevationBatch10k(b *testing.B) {
	d := benchPack(b)
	ds := []*Dataset{d}
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([]geo.LonLat, 10000)
	for i := range pts {
		pts[i].Lon, pts[i].Lat = geo.FromUTM(geo.Zone32, 477002+rng.Float64()*1996, 5551002+rng.Float64()*996)
	}
	ctx := context.Background()
	for _, m := range []Interpolation{Nearest, Bilinear, Cubic} {
		b.Run(m.String(), func(b *testing.B) {
			if _, err := ElevationBatch(ctx, ds, pts, m); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ElevationBatch(ctx, ds, pts, m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(pts))/b.Elapsed().Seconds(), "points/s")
		})
	}
}

// BenchmarkSampleFilePool samples the centres of 64 tiles round-robin with
// a block cache too small to keep any block, so every sample reads its
// file: once with a descriptor pool holding every tile, once with a pool
// of 4 that closes and reopens (open, fstat, identity check) a file for
// every sample. The difference is the cost of a thrashing pool.
func BenchmarkSampleFilePool(b *testing.B) {
	const n, size = 8, 64
	var tiles []fixtureTile
	for i := range n {
		for j := range n {
			tiles = append(tiles, fixtureTile{name: "t" + strconv.Itoa(i) + strconv.Itoa(j),
				e0: 477000 + float64(i*size), n0: 5551000 + float64(j*size), size: size, f: smooth})
		}
	}
	data := b.TempDir()
	d := makePack(b, data, pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{LayerDGM: tiles}, nil)
	for _, bc := range []struct {
		name  string
		files int
	}{{"held", 2 * n * n}, {"thrashing", 4}} {
		b.Run(bc.name, func(b *testing.B) {
			d, err := OpenPack(context.Background(), filepath.Join(data, "terrain", "he", "2026-07-20"), d.Manifest,
				Options{Cache: raster.NewCache(1), Files: raster.NewFilePool(bc.files)})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			l := d.Layer(LayerDGM)
			ctx := context.Background()
			sample := func() {
				for _, ft := range tiles {
					if _, _, err := l.Sample(ctx, ft.e0+size/2, ft.n0+size/2); err != nil {
						b.Fatal(err)
					}
				}
			}
			sample() // open every tile: header and index
			b.ReportAllocs()
			for b.Loop() {
				sample()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tiles)), "ns/sample")
		})
	}
}
