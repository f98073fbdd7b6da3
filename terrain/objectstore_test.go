package terrain

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/nginxtest"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// remoteAndLocal writes two 1 km COG tiles, serves them with nginx (a plain
// HTTP range server, the way object storage answers) and opens the same
// tiles as a local pack and as a pass-through pack reading the nginx URLs.
func remoteAndLocal(t testing.TB, cache func() *raster.Cache) (local, remote *Dataset, srv *nginxtest.Server) {
	t.Helper()
	cogs := t.TempDir()
	tiles := []fixtureTile{{name: "a", e0: 477000, n0: 5551000, size: 1000, f: smooth}, {name: "b", e0: 478000, n0: 5551000, size: 1000, f: smooth}}
	for _, ft := range tiles {
		f, err := os.Create(filepath.Join(cogs, ft.name+".tif"))
		if err != nil {
			t.Fatal(err)
		}
		if err := raster.WriteCOG(f, makeGrid(25832, ft.e0, ft.n0, ft.size, ft.f), raster.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	srv = nginxtest.Static(t, cogs)
	remoteTiles := append([]fixtureTile(nil), tiles...)
	for i := range remoteTiles {
		remoteTiles[i].url = srv.URL + "/" + remoteTiles[i].name + ".tif"
	}
	local = makePack(t, t.TempDir(), pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{LayerDGM: tiles}, cache())
	remote = makePack(t, t.TempDir(), pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{LayerDGM: remoteTiles}, cache())
	return local, remote, srv
}

func randomPoints(n int) []geo.LonLat {
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([]geo.LonLat, n)
	for i := range pts {
		pts[i].Lon, pts[i].Lat = geo.FromUTM(geo.Zone32, 477000+rng.Float64()*2000, 5551000+rng.Float64()*1000)
	}
	return pts
}

// TestObjectStorageCOGs: a pass-through pack on an HTTP range server
// answers exactly what the local copy answers, and reads the COGs by byte
// ranges, never whole.
func TestObjectStorageCOGs(t *testing.T) {
	local, remote, srv := remoteAndLocal(t, func() *raster.Cache { return raster.NewCache(64 << 20) })
	ctx := context.Background()
	for i, p := range randomPoints(2000) {
		a, errA := Elevation(ctx, []*Dataset{local}, p.Lon, p.Lat)
		b, errB := Elevation(ctx, []*Dataset{remote}, p.Lon, p.Lat)
		if errA != nil || errB != nil || a.Value != b.Value || math.IsNaN(b.Value) {
			t.Fatalf("point %d: local %v %v, remote %v %v", i, a.Value, errA, b.Value, errB)
		}
	}
	log := srv.AccessLog()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	ranged := 0
	for _, l := range lines {
		if strings.Contains(l, `"bytes=`) && strings.Contains(l, " 206 ") {
			ranged++
		}
		if strings.Contains(l, " 200 ") && strings.Contains(l, `"-"`) {
			t.Errorf("a COG was read whole: %s", l)
		}
	}
	if ranged == 0 {
		t.Errorf("no range requests reached nginx:\n%s", log)
	}
	t.Logf("%d requests to nginx, %d of them byte ranges", len(lines), ranged)
}

// BenchmarkElevationObjectStorage samples the same points from the local
// pack and from the pass-through pack on nginx: warm (tile cache filled:
// the steady state of a server) and cold (a new cache each round: every
// block fetched again).
func BenchmarkElevationObjectStorage(b *testing.B) {
	pts := randomPoints(1000)
	ctx := context.Background()
	for _, mode := range []string{"warm", "cold"} {
		for _, where := range []string{"local", "nginx"} {
			b.Run(mode+"/"+where, func(b *testing.B) {
				newCache := func() *raster.Cache { return raster.NewCache(256 << 20) }
				local, remote, _ := remoteAndLocal(b, newCache)
				d := local
				if where == "nginx" {
					d = remote
				}
				ds := []*Dataset{d}
				for _, p := range pts {
					if _, err := Elevation(ctx, ds, p.Lon, p.Lat); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if mode == "cold" {
						b.StopTimer()
						d.Close()
						if where == "nginx" {
							_, d, _ = remoteAndLocal(b, newCache)
						} else {
							d, _, _ = remoteAndLocal(b, newCache)
						}
						ds = []*Dataset{d}
						b.StartTimer()
					}
					for _, p := range pts {
						if _, err := Elevation(ctx, ds, p.Lon, p.Lat); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.N*len(pts))/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}
