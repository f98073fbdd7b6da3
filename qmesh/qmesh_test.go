package qmesh

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/svc-geodata/svc/geoid"
)

// decoded is a tile read back by decode (the test's own reader of the format).
type decoded struct {
	minH, maxH  float64
	u, v        []int
	h           []float64 // metres
	tri         []int
	west, south []int
	east, north []int
	normals     []byte
	center      [3]float64
	radius      float64
	occlusion   [3]float64
}

func decode(b []byte) (*decoded, error) {
	if len(b) < 92 {
		return nil, fmt.Errorf("%d bytes", len(b))
	}
	le := binary.LittleEndian
	f64 := func(o int) float64 { return math.Float64frombits(le.Uint64(b[o:])) }
	d := &decoded{center: [3]float64{f64(0), f64(8), f64(16)},
		minH: float64(math.Float32frombits(le.Uint32(b[24:]))), maxH: float64(math.Float32frombits(le.Uint32(b[28:]))),
		radius: f64(56), occlusion: [3]float64{f64(64), f64(72), f64(80)}}
	nv := int(le.Uint32(b[88:]))
	pos := 92
	if nv > 70000 || pos+6*nv > len(b) {
		return nil, fmt.Errorf("vertex count %d", nv)
	}
	read := func() []int {
		out := make([]int, nv)
		acc := 0
		for i := range nv {
			z := int(le.Uint16(b[pos+2*i:]))
			acc += (z >> 1) ^ -(z & 1)
			out[i] = acc
		}
		pos += 2 * nv
		return out
	}
	d.u, d.v = read(), read()
	hq := read()
	for _, q := range hq {
		d.h = append(d.h, d.minH+float64(q)/32767*(d.maxH-d.minH))
	}
	if pos+4 > len(b) {
		return nil, fmt.Errorf("no triangle count")
	}
	nt := int(le.Uint32(b[pos:]))
	pos += 4
	if pos+6*nt > len(b) {
		return nil, fmt.Errorf("triangle count %d", nt)
	}
	highest := 0
	for i := range 3 * nt {
		c := int(le.Uint16(b[pos+2*i:]))
		d.tri = append(d.tri, highest-c)
		if c == 0 {
			highest++
		}
	}
	pos += 6 * nt
	for _, e := range []*[]int{&d.west, &d.south, &d.east, &d.north} {
		if pos+4 > len(b) {
			return nil, fmt.Errorf("edges cut")
		}
		n := int(le.Uint32(b[pos:]))
		pos += 4
		if n > nv || pos+2*n > len(b) {
			return nil, fmt.Errorf("edge count %d", n)
		}
		for i := range n {
			*e = append(*e, int(le.Uint16(b[pos+2*i:])))
		}
		pos += 2 * n
	}
	for pos < len(b) {
		if pos+5 > len(b) {
			return nil, fmt.Errorf("extension header cut")
		}
		id, n := b[pos], int(le.Uint32(b[pos+1:]))
		pos += 5
		if pos+n > len(b) {
			return nil, fmt.Errorf("extension %d cut", id)
		}
		if id == 1 {
			d.normals = b[pos : pos+n]
		}
		pos += n
	}
	return d, nil
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hills is a synthetic DGM over a box in Hesse, none elsewhere.
func hills(_ context.Context, lon, lat float64) (float64, bool, error) {
	if lon < 8.60 || lon > 8.75 || lat < 50.05 || lat > 50.15 {
		return 0, false, nil
	}
	return 120 + 30*math.Sin(lon*900)*math.Cos(lat*700), true, nil
}

// tileAt returns the level-z tile holding lon, lat.
func tileAt(z int, lon, lat float64) Tile {
	size := 180 / math.Ldexp(1, z)
	return Tile{Z: z, X: int((lon + 180) / size), Y: int((lat + 90) / size)}
}

// TestTileFitsSamples: every decoded vertex lies at the sampled height plus
// the undulation (within quantization), the mesh is within the tile's
// tolerance of the height function at the lattice, all edge lattice points
// are vertices, and triangles wind counter-clockwise.
func TestTileFitsSamples(t *testing.T) {
	tl := New(nil, 0)
	g := geoid.Default()
	for _, z := range []int{10, 14, 16} {
		tile := tileAt(z, 8.68, 50.11)
		res, err := tl.Tile(context.Background(), "gen", hills, tile, true)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decode(gunzip(t, res.Gzip))
		if err != nil {
			t.Fatal(err)
		}
		w, s, e, n := tile.Bounds()
		q := (d.maxH - d.minH) / 32767
		for i := range d.u {
			// The lattice point the vertex stands for (u, v are rounded).
			c, r := math.Round(float64(d.u[i])*(grid-1)/32767), math.Round(float64(d.v[i])*(grid-1)/32767)
			lon, lat := w+(e-w)*c/(grid-1), s+(n-s)*r/(grid-1)
			h, ok, _ := hills(context.Background(), lon, lat)
			if !ok {
				h = 0
			}
			nn, _ := g.Undulation(lon, lat)
			if diff := math.Abs(d.h[i] - (h + nn)); diff > q+1e-3 {
				t.Fatalf("z%d vertex %d at %.5f,%.5f: %.3f, want %.3f", z, i, lon, lat, d.h[i], h+nn)
			}
		}
		for name, edge := range map[string][]int{"west": d.west, "south": d.south, "east": d.east, "north": d.north} {
			if len(edge) != grid {
				t.Errorf("z%d %s edge has %d vertices, want %d", z, name, len(edge), grid)
			}
		}
		for k := 0; k+2 < len(d.tri); k += 3 {
			a, b, c := d.tri[k], d.tri[k+1], d.tri[k+2]
			if (d.u[b]-d.u[a])*(d.v[c]-d.v[a])-(d.u[c]-d.u[a])*(d.v[b]-d.v[a]) <= 0 {
				t.Fatalf("z%d triangle %d is not counter-clockwise", z, k/3)
			}
		}
		if len(d.normals) != 2*len(d.u) {
			t.Errorf("normals: %d bytes for %d vertices", len(d.normals), len(d.u))
		}
		t.Logf("z%d: %d vertices, %d triangles, tolerance %.2f m, %d bytes gzip", z, len(d.u), len(d.tri)/3, res.Stats.ToleranceM, len(res.Gzip))
	}
}

// TestNeighboursShareEdges: the east edge of a tile and the west edge of
// its neighbour have the same vertices at the same heights; likewise north
// and south.
func TestNeighboursShareEdges(t *testing.T) {
	tl := New(nil, 0)
	a := tileAt(15, 8.68, 50.11)
	get := func(tile Tile) *decoded {
		res, err := tl.Tile(context.Background(), "gen", hills, tile, false)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decode(gunzip(t, res.Gzip))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	da, east, north := get(a), get(Tile{a.Z, a.X + 1, a.Y}), get(Tile{a.Z, a.X, a.Y + 1})
	q := func(d *decoded) float64 { return (d.maxH - d.minH) / 32767 }
	pairs := []struct {
		name   string
		d1, d2 *decoded
		e1, e2 []int
		key    func(d *decoded, i int) int
	}{
		{"east/west", da, east, da.east, east.west, func(d *decoded, i int) int { return d.v[i] }},
		{"north/south", da, north, da.north, north.south, func(d *decoded, i int) int { return d.u[i] }},
	}
	for _, p := range pairs {
		if len(p.e1) != len(p.e2) {
			t.Fatalf("%s: %d vs %d edge vertices", p.name, len(p.e1), len(p.e2))
		}
		for k := range p.e1 {
			i, j := p.e1[k], p.e2[k]
			if p.key(p.d1, i) != p.key(p.d2, j) {
				t.Fatalf("%s: vertex %d at %d vs %d", p.name, k, p.key(p.d1, i), p.key(p.d2, j))
			}
			if diff := math.Abs(p.d1.h[i] - p.d2.h[j]); diff > q(p.d1)+q(p.d2) {
				t.Fatalf("%s: vertex %d heights %.4f vs %.4f", p.name, k, p.d1.h[i], p.d2.h[j])
			}
		}
	}
}

// TestOutsideCoverage: far from any data a tile is the geoid surface (or
// the ellipsoid beyond the grid's border values), never an error.
func TestOutsideCoverage(t *testing.T) {
	tl := New(nil, 0)
	for _, tile := range []Tile{{0, 0, 0}, {0, 1, 0}, {5, 3, 7}, {12, tileAt(12, 2, 48).X, tileAt(12, 2, 48).Y}} {
		res, err := tl.Tile(context.Background(), "gen", hills, tile, false)
		if err != nil {
			t.Fatalf("%v: %v", tile, err)
		}
		d, err := decode(gunzip(t, res.Gzip))
		if err != nil || len(d.tri) == 0 || d.minH < -200 || d.maxH > 200 {
			t.Fatalf("%v: %v, %+v", tile, err, d)
		}
	}
	for _, bad := range []Tile{{-1, 0, 0}, {MaxZoom + 1, 0, 0}, {1, 4, 0}, {1, 0, 2}} {
		if _, err := tl.Tile(context.Background(), "gen", hills, bad, false); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestCacheBoundAndGeneration(t *testing.T) {
	tl := New(nil, 20<<10)
	tile := tileAt(14, 8.68, 50.11)
	r1, _ := tl.Tile(context.Background(), "a", hills, tile, false)
	r2, _ := tl.Tile(context.Background(), "a", hills, tile, false)
	r3, _ := tl.Tile(context.Background(), "b", hills, tile, false)
	if r1.ETag != r2.ETag || r1.ETag == r3.ETag {
		t.Errorf("ETags %s %s %s", r1.ETag, r2.ETag, r3.ETag)
	}
	for i := range 20 {
		tl.Tile(context.Background(), "a", hills, Tile{14, tile.X + i, tile.Y}, false)
	}
	hits, builds, size := tl.CacheStats()
	if hits != 2 || builds != 21 || size > 20<<10+int64(len(r1.Gzip)) {
		t.Errorf("hits %d builds %d size %d", hits, builds, size)
	}
}

func FuzzDecodeRoundTrip(f *testing.F) {
	f.Add(int64(1), uint8(14))
	f.Fuzz(func(t *testing.T, seed int64, z uint8) {
		zz := int(z) % (MaxZoom + 1)
		r := math.Abs(float64(seed%100000)) / 100000
		tile := tileAt(zz, 5+10*r, 47+8*r)
		m, _, err := build(context.Background(), tile, hills, geoid.Default())
		if err != nil {
			t.Fatal(err)
		}
		d, err := decode(encode(m, true))
		if err != nil || len(d.u) != len(m.u) || len(d.tri) != len(m.tri) {
			t.Fatalf("round trip: %v", err)
		}
		for i, v := range m.tri {
			if d.tri[i] != int(v) {
				t.Fatalf("index %d: %d vs %d", i, d.tri[i], v)
			}
		}
	})
}

func BenchmarkTileCold(b *testing.B) {
	tile := tileAt(15, 8.68, 50.11)
	for b.Loop() {
		tl := New(nil, 0)
		if _, err := tl.Tile(context.Background(), "g", hills, tile, true); err != nil {
			b.Fatal(err)
		}
	}
}

// cesiumVisible is CesiumJS's horizon test (EllipsoidalOccluder's
// isScaledSpacePointVisible, the one GlobeSurfaceTileProvider applies to a
// tile's horizon occlusion point): p in the ellipsoid-scaled space, camera
// in ECEF metres.
func cesiumVisible(p, camera [3]float64) bool {
	cv := scaled(camera)
	vh2 := dot(cv, cv) - 1
	vt := sub(p, cv)
	vtDotVc := -dot(vt, cv)
	var occluded bool
	if vh2 < 0 {
		occluded = vtDotVc > 0
	} else {
		occluded = vtDotVc > vh2 && vtDotVc*vtDotVc/dot(vt, vt) > vh2
	}
	return !occluded
}

func scaled(p [3]float64) [3]float64 {
	return [3]float64{p[0] / semiMajor, p[1] / semiMajor, p[2] / semiMinor}
}

// TestHorizonPointHidesOnlyHiddenTiles: CesiumJS culls a tile whose
// horizon occlusion point is behind the ellipsoid's horizon, so from every
// viewpoint where the point is hidden, every vertex of the tile must be
// hidden too (vertices below the ellipsoid count as on it, as in Cesium's
// construction), and from above the tile the point is visible. The level-0
// tiles span a hemisphere each: no point along the centre's direction
// qualifies, and their point must be one CesiumJS never judges hidden (the
// zero vector it judged hidden from everywhere, so CesiumJS dropped the
// root tiles and never asked for a deeper one). Tiles of smaller size keep
// a finite point, so culling still works for them.
func TestHorizonPointHidesOnlyHiddenTiles(t *testing.T) {
	tl := New(nil, 0)
	tiles := []Tile{{0, 0, 0}, {0, 1, 0}}
	for _, z := range []int{1, 2, 3, 5, 8, 12, 16, 18} {
		tiles = append(tiles, tileAt(z, 8.68, 50.11))
	}
	tiles = append(tiles, Tile{1, 0, 0}, Tile{2, 7, 3}, Tile{3, 0, 7}) // south-west, the north-east corner, at the pole
	var cameras [][3]float64
	for lat := -90.0; lat <= 90; lat += 7.5 {
		for lon := -180.0; lon < 180; lon += 7.5 {
			for _, h := range []float64{2, 1e3, 1e5, 1e6, 2e7, 1e9} {
				cameras = append(cameras, ecef(lon, lat, h))
			}
		}
	}
	for _, tile := range tiles {
		res, err := tl.Tile(context.Background(), "gen", hills, tile, false)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decode(gunzip(t, res.Gzip))
		if err != nil {
			t.Fatal(err)
		}
		w, s, e, n := tile.Bounds()
		verts := make([][3]float64, len(d.u))
		for i := range d.u {
			v := scaled(ecef(w+(e-w)*float64(d.u[i])/32767, s+(n-s)*float64(d.v[i])/32767, d.h[i]))
			if m := math.Sqrt(dot(v, v)); m < 1 {
				v = [3]float64{v[0] / m, v[1] / m, v[2] / m}
			}
			verts[i] = v
		}
		p := d.occlusion
		finite := !math.IsNaN(p[0]+p[1]+p[2]) && !math.IsInf(p[0]+p[1]+p[2], 0)
		if tile.Z > 0 && !finite {
			t.Errorf("%d/%d/%d: no horizon occlusion point (%v), want one for a tile of this size", tile.Z, tile.X, tile.Y, p)
		}
		// Scaled vertices are tested with the same formula: a camera at cv
		// sees v unless v is behind the horizon plane and in the shadow cone.
		hidden := 0
		for _, c := range cameras {
			if cesiumVisible(p, c) {
				continue
			}
			hidden++
			for i, v := range verts {
				if cesiumVisible(v, c) {
					t.Fatalf("%d/%d/%d: point %v hidden from %v, but vertex %d (%v) is visible", tile.Z, tile.X, tile.Y, p, c, i, v)
				}
			}
		}
		// From above the tile (its centre, any height) the point is visible.
		for _, h := range []float64{10, 1e4, 1e6, 1e8} {
			if c := ecef((w+e)/2, (s+n)/2, h); !cesiumVisible(p, c) {
				t.Errorf("%d/%d/%d: point %v hidden from %.0f m above the tile's centre", tile.Z, tile.X, tile.Y, p, h)
			}
		}
		if tile.Z == 0 && hidden > 0 {
			t.Errorf("%d/%d/%d: point %v hidden from %d of %d viewpoints, want none (a hemisphere is never wholly behind the horizon of a point on its centre's ray)", tile.Z, tile.X, tile.Y, p, hidden, len(cameras))
		}
		t.Logf("%d/%d/%d: point %v hidden from %d of %d viewpoints", tile.Z, tile.X, tile.Y, p, hidden, len(cameras))
	}
}
