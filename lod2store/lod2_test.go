package lod2store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// prism returns the surfaces of a box building (ground, 4 walls, flat roof)
// with its south-west corner at (x, y).
func prism(x, y, w, d, z0, h float64) []SurfaceInput {
	c := [][2]float64{{x, y}, {x + w, y}, {x + w, y + d}, {x, y + d}}
	var out []SurfaceInput
	ground := Ring{}
	for i := 3; i >= 0; i-- {
		ground = append(ground, [3]float64{c[i][0], c[i][1], z0})
	}
	out = append(out, SurfaceInput{Class: ClassGround, Polygons: [][]Ring{{ground}}})
	roof := Ring{}
	for i := range 4 {
		a, b := c[i], c[(i+1)%4]
		out = append(out, SurfaceInput{Class: ClassWall, Polygons: [][]Ring{{{
			{a[0], a[1], z0}, {b[0], b[1], z0}, {b[0], b[1], z0 + h}, {a[0], a[1], z0 + h}}}}})
		roof = append(roof, [3]float64{a[0], a[1], z0 + h})
	}
	return append(out, SurfaceInput{Class: ClassRoof, Polygons: [][]Ring{{roof}}})
}

// writeTown writes n box buildings scattered over size x size metres from
// (e0, n0) and opens the file.
func writeTown(t testing.TB, epsg int, e0, n0, size float64, n int, seed uint64) (*LoD2, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lod2.sqlite")
	w, err := CreateLoD2(context.Background(), path, epsg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range n {
		x, y := e0+rng.Float64()*size, n0+rng.Float64()*size
		b := BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i), Valid: true, Surfaces: prism(x, y, 5+rng.Float64()*15, 5+rng.Float64()*15, 100, 10)}
		if err := w.Add(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Finish(context.Background(), map[string]string{"bl": "he"}); err != nil {
		t.Fatal(err)
	}
	s, err := OpenLoD2(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// searchAll pages through a search and returns the surface ids in order.
func searchAll(t testing.TB, s *LoD2, b geo.BBox, page int) []int64 {
	t.Helper()
	var ids []int64
	var after int64
	for {
		hits, err := s.Search(context.Background(), b, after, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			ids = append(ids, h.SurfaceID)
		}
		if len(hits) < page {
			return ids
		}
		after = hits[len(hits)-1].SurfaceID
	}
}

// utmRingWKT is the bbox outline densified and projected, as WKT.
func utmRingWKT(b geo.BBox, z geo.Zone) string {
	q := newQueryArea(b, z)
	var sb strings.Builder
	sb.WriteString("POLYGON((")
	for i, p := range q.ring {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%.4f %.4f", p[0], p[1])
	}
	sb.WriteString("))")
	return sb.String()
}

// TestSearchMatchesSpatialite checks the index and the exact intersection
// test against GEOS, as run by the spatialite CLI on the same file.
func TestSearchMatchesSpatialite(t *testing.T) {
	t.Parallel()
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	const e0, n0 = 476000.0, 5550000.0
	s, path := writeTown(t, 25832, e0, n0, 1500, 600, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range 12 {
		x, y := e0+rng.Float64()*1200, n0+rng.Float64()*1200
		lon0, lat0 := geo.FromUTM(geo.Zone32, x, y)
		lon1, lat1 := geo.FromUTM(geo.Zone32, x+50+rng.Float64()*400, y+50+rng.Float64()*400)
		b := geo.BBox{MinLon: lon0, MinLat: lat0, MaxLon: lon1, MaxLat: lat1}
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			got := searchAll(t, s, b, 37)
			sql := fmt.Sprintf("SELECT surface_id FROM surfaces WHERE ST_Intersects(geom, GeomFromText('%s', 25832)) ORDER BY surface_id;", utmRingWKT(b, geo.Zone32))
			out, err := exec.Command(bin, "-silent", path, sql).CombinedOutput()
			if err != nil {
				t.Fatalf("spatialite: %v\n%s", err, out)
			}
			var want []int64
			for _, l := range strings.Fields(string(out)) {
				v, err := strconv.ParseInt(l, 10, 64)
				if err != nil {
					t.Fatalf("spatialite output %q", out)
				}
				want = append(want, v)
			}
			seen := map[int64]bool{}
			for _, id := range got {
				if seen[id] {
					t.Fatalf("surface %d returned twice", id)
				}
				seen[id] = true
			}
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("search found %d surfaces, spatialite %d\n got %v\nwant %v", len(got), len(want), got, want)
			}
			if len(want) == 0 {
				t.Error("empty test box")
			}
		})
	}
}

func TestSearchCursor(t *testing.T) {
	t.Parallel()
	s, _ := writeTown(t, 25832, 476000, 5550000, 500, 50, 3)
	if _, err := s.Search(context.Background(), s.BBox(), 1<<40, 10); !errors.Is(err, ErrCursor) {
		t.Errorf("cursor past the end: %v", err)
	}
	all := searchAll(t, s, s.BBox(), 1000)
	if int64(len(all)) != s.counts.surfaces {
		t.Fatalf("%d of %d surfaces", len(all), s.counts.surfaces)
	}
	for _, page := range []int{1, 7, 100} {
		if got := searchAll(t, s, s.BBox(), page); fmt.Sprint(got) != fmt.Sprint(all) {
			t.Errorf("page size %d changes the order", page)
		}
	}
	// Outside the extent: nothing, without touching the index.
	far := geo.BBox{MinLon: 0, MinLat: 0, MaxLon: 1, MaxLat: 1}
	if hits, err := s.Search(context.Background(), far, 0, 10); err != nil || len(hits) != 0 {
		t.Errorf("far bbox: %v %v", hits, err)
	}
}

func TestLoadIndexRejectsCorrupt(t *testing.T) {
	t.Parallel()
	good, _ := buildIndex([]uint32{1, 2, 3}, []box{{0, 0, 1, 1}, {2, 2, 3, 3}, {5, 5, 6, 6}})
	if _, err := loadIndex(good); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XXXXXXXX"), good[8:]...),
		"truncated": good[:len(good)-1],
		"dup id":    append(append(append([]byte{}, good[:16]...), 1, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0), good[28:]...),
	} {
		if _, err := loadIndex(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzLoadIndex(f *testing.F) {
	seed, _ := buildIndex([]uint32{1, 2}, []box{{0, 0, 1, 1}, {2, 2, 3, 3}})
	f.Add(seed)
	f.Add([]byte(indexMagic + "\xff\xff\xff\x7f\x10\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := loadIndex(b)
		if err != nil {
			return
		}
		x.walk(box{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}, -1, func(int, uint32) bool { return true })
	})
}

func TestHilbertIsABijection(t *testing.T) {
	t.Parallel()
	seen := map[uint32]bool{}
	for x := uint32(0); x < 64; x++ {
		for y := uint32(0); y < 64; y++ {
			seen[hilbert(x<<10, y<<10)] = true
		}
	}
	if len(seen) != 64*64 {
		t.Errorf("%d distinct keys for 4096 cells", len(seen))
	}
}

// TestRecordLimits: a surface the 16-bit counts of the search record cannot
// hold is refused at import with an error naming the building, not written
// with wrapped counts.
func TestRecordLimits(t *testing.T) {
	ctx := context.Background()
	w, err := CreateLoD2(ctx, filepath.Join(t.TempDir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	big := make(Ring, 0, 70001)
	for i := range 70000 {
		a := 2 * math.Pi * float64(i) / 70000
		big = append(big, [3]float64{477000 + 50*math.Cos(a), 5551000 + 50*math.Sin(a), 100})
	}
	big = append(big, big[0])
	err = w.Add(ctx, BuildingInput{GMLID: "DEHEBIG", Valid: true, Surfaces: []SurfaceInput{{Class: ClassGround, Polygons: [][]Ring{{big}}}}})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "DEHEBIG") || !strings.Contains(err.Error(), "65535") {
		t.Fatalf("Add = %v, want ErrInput naming the building and the limit", err)
	}
}

// TestRoofCount: the roof count comes from the metadata the writer keeps;
// a file written before roof_count counts its roofs in the background from
// the search file, to the same number, without making the caller wait; and
// Close during that count stops it before the file is unmapped.
func TestRoofCount(t *testing.T) {
	ctx := context.Background()
	s, path := writeTown(t, 25832, 477000, 5551000, 500, 60, 3)
	if n, ok := s.RoofCount(); !ok || n != 60 {
		t.Fatalf("roof count from the metadata: %d %v, want 60 (one roof per prism)", n, ok)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM svc_metadata WHERE key = 'roof_count'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	old, err := OpenLoD2(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	n, ok := old.RoofCount()
	for deadline := time.Now().Add(10 * time.Second); !ok && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		n, ok = old.RoofCount()
	}
	if !ok || n != 60 {
		t.Fatalf("roof count from the search file: %d %v, want 60", n, ok)
	}
	// Closed while counting (or before it started): no read after Close.
	for range 20 {
		f, err := OpenLoD2(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		f.RoofCount()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		f.RoofCount() // starts nothing on a closed file
	}
}
