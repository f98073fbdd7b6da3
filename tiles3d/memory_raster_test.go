package tiles3d_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

// gridSide is the side of the square grid of m DGM tiles (m = 4, 16).
func gridSide(m int) int { return int(math.Round(math.Sqrt(float64(m)))) }

// TestTerrainMeshMemoryBounded builds the terrain mesh of 16 and of 64 DGM
// tiles and fails when the peak live heap, less the most the block cache
// held (a bound of its own, 256 MiB by default, 4 MiB here; PeakBytes, as
// the build's Close empties it), grows by more than 64 KiB per tile (a
// tile's 257 x 257 lattice is 258 KiB, its decoded block 1 MiB): a tile's
// lattice, block and RTIN are held while it is built, what stays for the
// whole build is its tileset entry, build-inputs record and opened COG
// (~3.3 KB in a heap profile). Both sizes fill the cache, so both evict:
// at 4 tiles it held every block, and the evicting runs' extra block then
// read as growth per tile. What is left of the measured figure (12-40 KB)
// is transient garbage caught by a collection's end, over 48 tiles.
func TestTerrainMeshMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and meshes 24 DGM tiles")
	}
	per := testtool.HeapPerItem(t, "DGM tiles", 16, func(m int) func() uint64 {
		data := t.TempDir()
		importDGM(t, data, "2026-07-20", gridSide(m), gridSide(m), nil)
		return func() uint64 {
			c := raster.NewCache(4 << 20)
			if _, err := tiles3d.BuildTerrainMesh(context.Background(), tiles3d.TerrainMeshOptions{DataDir: data, BL: "he",
				Workers: 1, Cache: c}); err != nil {
				t.Fatal(err)
			}
			return uint64(c.Stats().PeakBytes)
		}
	})
	t.Logf("%.0f bytes per DGM tile", per)
	if per > 64<<10 {
		t.Errorf("the peak live heap grows by %.0f bytes per DGM tile, want at most 64 KiB", per)
	}
}

// denseExtract is an OSM extract over the nx x ny tiles of importDGM: per
// km², 400 round grass areas of 48 vertices and 20 roads of 20 vertices
// (about 0.3 MB of coordinates per km²).
func denseExtract(nx, ny int) string {
	var b strings.Builder
	id := 0
	node := func(e, n float64) int {
		id++
		lon, lat := geo.FromUTM(geo.Zone32, e, n)
		fmt.Fprintf(&b, `<node id="%d" version="1" lat="%.8f" lon="%.8f"/>`+"\n", id, lat, lon)
		return id
	}
	way := func(wid int, nodes []int, tags string) {
		fmt.Fprintf(&b, `<way id="%d" version="1">`, wid)
		for _, n := range nodes {
			fmt.Fprintf(&b, `<nd ref="%d"/>`, n)
		}
		b.WriteString(tags + "</way>\n")
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<osm version=\"0.6\">\n")
	wid := 0
	for i := range nx {
		for j := range ny {
			e0, n0 := tileE+float64(i-1)*1000, tileN+float64(j)*1000
			for k := range 400 {
				ce, cn := e0+25+float64(k%20)*50, n0+25+float64(k/20)*50
				var ring []int
				for v := range 48 {
					a := 2 * math.Pi * float64(v) / 48
					ring = append(ring, node(ce+15*math.Cos(a), cn+15*math.Sin(a)))
				}
				wid++
				way(wid, append(ring, ring[0]), `<tag k="landuse" v="grass"/>`)
			}
			for k := range 20 {
				var line []int
				for v := range 20 {
					line = append(line, node(e0+10+float64(v)*49, n0+12+float64(k)*50))
				}
				wid++
				way(wid, line, `<tag k="highway" v="residential"/>`)
			}
		}
	}
	b.WriteString("</osm>\n")
	return b.String()
}

// TestOSMCoverMemoryBounded builds the OSM cover of 9 and of 36 DGM tiles
// with the dense extract over them and fails when the peak live heap, less
// the block cache, grows by more than 400 KiB per km² tile (about 1 MiB
// when the build held every feature; a few MiB of noise over 27 tiles): the
// features' geometry is read back per tile from the build's spill file,
// what stays per feature is its index entry (about 80 bytes, 35 KiB per
// tile here).
func TestOSMCoverMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and drapes 54 km² of dense OSM")
	}
	per := testtool.HeapPerItem(t, "DGM tiles with OSM", 9, func(m int) func() uint64 {
		data := t.TempDir()
		n := gridSide(m)
		importDGM(t, data, "2026-07-20", n, n, nil)
		osmFile := filepath.Join(t.TempDir(), "he.osm")
		if err := os.WriteFile(osmFile, []byte(denseExtract(n, n)), 0o644); err != nil {
			t.Fatal(err)
		}
		c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "odbl-1.0"}
		if _, err := importer.OSM(context.Background(), c, osmFile); err != nil {
			t.Fatal(err)
		}
		return func() uint64 {
			c := raster.NewCache(4 << 20)
			if _, err := tiles3d.BuildOSMCover(context.Background(), tiles3d.OSMCoverOptions{DataDir: data, BL: "he", StepM: 10,
				Workers: 1, Cache: c}); err != nil {
				t.Fatal(err)
			}
			return uint64(c.Stats().PeakBytes)
		}
	})
	t.Logf("%.0f bytes per DGM tile", per)
	if per > 400<<10 {
		t.Errorf("the peak live heap grows by %.0f bytes per DGM tile, want at most 400 KiB", per)
	}
}
