package geoid

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// gcg2016Blob is the git blob id of de_bkg/de_bkg_gcg2016.tif in
// OSGeo/PROJ-data (tag 1.24): the embedded file is that file, unchanged.
const gcg2016Blob = "0d297d9a03983381abb96c73a5893b32e7a792d9"

func TestGCG2016IsPROJDataFile(t *testing.T) {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(gcg2016TIF))
	h.Write(gcg2016TIF)
	if got := hex.EncodeToString(h.Sum(nil)); got != gcg2016Blob {
		t.Fatalf("embedded de_bkg_gcg2016.tif is git blob %s, PROJ-data's is %s", got, gcg2016Blob)
	}
	m := Default()
	if m.cols != 950 || m.rows != 1052 || m.Attribution() != GCG2016Credit || !strings.HasPrefix(m.ID(), "GCG2016") {
		t.Fatalf("default model %q: %d x %d nodes, credit %q", m.ID(), m.cols, m.rows, m.Attribution())
	}
	if EGM96().Attribution() != "" {
		t.Errorf("EGM96 (public domain) credits %q", EGM96().Attribution())
	}
	for name, want := range map[string]*Model{"gcg2016": Default(), "GCG2016": Default(), "egm96": EGM96()} {
		if got, ok := ByName(name); !ok || got != want {
			t.Errorf("ByName(%q) = %v, %v", name, got, ok)
		}
	}
	if _, ok := ByName("egm2008"); ok {
		t.Error("ByName(egm2008) answered")
	}
}

// cctGCG2016 runs PROJ's cct +proj=vgridshift on the embedded GCG2016,
// written to a private PROJ_DATA directory with PROJ's network access off,
// and returns N at each point; NaN where PROJ refuses the point (outside the
// grid, or a cell whose four nodes have no data).
func cctGCG2016(t *testing.T, pts [][2]float64) []float64 {
	t.Helper()
	cct := testtool.Require(t, "cct", "apt-get install proj-bin")
	dir := t.TempDir()
	if _, err := WriteGCG2016(dir); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, p := range pts {
		fmt.Fprintf(&in, "%s %s 0\n", strconv.FormatFloat(p[0], 'g', -1, 64), strconv.FormatFloat(p[1], 'g', -1, 64))
	}
	cmd := exec.Command(cct, "-d", "6", "+proj=vgridshift", "+grids=de_bkg_gcg2016.tif", "+multiplier=1")
	cmd.Env = append(os.Environ(), "PROJ_DATA="+dir, "PROJ_LIB="+dir, "PROJ_NETWORK=OFF", "PROJ_USER_WRITABLE_DIRECTORY="+dir)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cct: %v", err)
	}
	var got []float64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case strings.HasPrefix(line, "# Record"):
			got = append(got, math.NaN())
		case strings.HasPrefix(strings.TrimSpace(line), "("): // the reason of the error above
		default:
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[2], 64)
			if len(f) < 3 || err != nil {
				t.Fatalf("cct line %q", line)
			}
			got = append(got, v)
		}
	}
	if len(got) != len(pts) {
		t.Fatalf("cct answered %d points of %d:\n%s", len(got), len(pts), out)
	}
	return got
}

// TestGCG2016AgainstPROJ: the default model gives N as PROJ computes it
// from the same grid (cct +proj=vgridshift) to 0.1 mm, at 2,000 random
// nodes, 2,000 random points over the grid's extent, and 500 points in
// cells at the edge of its data (some nodes without data, where PROJ
// renormalises the weights of the others); where PROJ refuses a point the
// model's own grid gives nothing too and the default answers with EGM96.
func TestGCG2016AgainstPROJ(t *testing.T) {
	m := Default()
	rng := rand.New(rand.NewPCG(2016, 22))
	w, s := m.lon0, m.lat0
	e, n := w+m.dlon*float64(m.cols-1), s+m.dlat*float64(m.rows-1)
	nan := func(c, r int) bool { return math.IsNaN(float64(m.v[r*m.cols+c])) }
	var pts [][2]float64
	kind := map[int]string{}
	for len(pts) < 2000 { // nodes with data (not on the grid's outer lines,
		// where PROJ's extent test in radians and this one in degrees can
		// disagree in the last bit about a point exactly on the line)
		c, r := 1+rng.IntN(m.cols-2), 1+rng.IntN(m.rows-2)
		if !nan(c, r) {
			pts = append(pts, [2]float64{w + float64(c)*m.dlon, s + float64(r)*m.dlat})
		}
	}
	for range 2000 {
		kind[len(pts)] = "random"
		pts = append(pts, [2]float64{w + rng.Float64()*(e-w), s + rng.Float64()*(n-s)})
	}
	for edge := 0; edge < 500; {
		c, r := rng.IntN(m.cols-1), rng.IntN(m.rows-1)
		k := 0
		for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			if nan(c+d[0], r+d[1]) {
				k++
			}
		}
		if k > 0 && k < 4 {
			kind[len(pts)] = "edge"
			pts = append(pts, [2]float64{w + (float64(c)+rng.Float64())*m.dlon, s + (float64(r)+rng.Float64())*m.dlat})
			edge++
		}
	}
	want := cctGCG2016(t, pts)
	var worst float64
	refused := 0
	for i, p := range pts {
		got, ok := m.undulation(p[0], p[1])
		if math.IsNaN(want[i]) {
			refused++
			if ok || m.Covers(p[0], p[1]) {
				t.Errorf("%s point %.6f, %.6f: PROJ refuses it, GCG2016 gave %.4f", kind[i], p[0], p[1], got)
			}
			fb, ok1 := m.Undulation(p[0], p[1])
			eg, ok2 := EGM96().Undulation(p[0], p[1])
			if ok1 != ok2 || fb != eg {
				t.Errorf("%.6f, %.6f beyond GCG2016: default %.4f (%v), EGM96 %.4f (%v)", p[0], p[1], fb, ok1, eg, ok2)
			}
			continue
		}
		if !ok {
			t.Errorf("%s point %.6f, %.6f: PROJ gives %.6f, GCG2016 nothing", kind[i], p[0], p[1], want[i])
			continue
		}
		d := math.Abs(got - want[i])
		worst = max(worst, d)
		if d > 1e-4 {
			t.Errorf("%s point %.6f, %.6f: N %.6f, PROJ %.6f", kind[i], p[0], p[1], got, want[i])
		}
	}
	t.Logf("%d points, %d refused by PROJ (no data), worst difference %.2g m", len(pts), refused, worst)
	if refused == 0 || refused > 2000 {
		t.Errorf("%d points without data: the sample does not reach beyond GCG2016's data", refused)
	}
}

// TestGCG2016CoversGermany: GCG2016's own grid (no fallback) answers at
// the extreme points of Germany, at its border towns and at the capitals
// of the BL, and stops beyond it (Brussels, Prague, Vienna, Zurich answer
// from EGM96).
func TestGCG2016CoversGermany(t *testing.T) {
	m := Default()
	for _, p := range [][2]float64{
		{5.8663, 51.0508}, {15.0419, 51.2729}, {10.1783, 47.2701}, {8.4169, 55.0585}, // Selfkant, Deschka, Haldenwanger Eck, List
		{6.0839, 50.7753}, {14.9875, 51.1528}, {13.4637, 48.5667}, {7.5886, 47.5596}, {9.1732, 47.6779}, {13.0014, 47.6314},
		{6.6437, 49.7596}, {8.6821, 50.1109}, {13.4050, 52.5200}, {10.0, 53.55}, {11.5820, 48.1351}, {14.3217, 53.9},
		{13.0645, 52.3906}, {8.8078, 53.0793}, {8.2473, 49.9929}, {6.9603, 50.9375}, {6.9969, 49.2402}, {12.3731, 51.3397},
		{11.6276, 52.1205}, {10.1228, 54.3233}, {11.0299, 50.9848}, {9.7320, 52.3759}, {11.4074, 53.6355}, {9.1829, 48.7758},
	} {
		if !m.Covers(p[0], p[1]) {
			t.Errorf("GCG2016 has no value at %.4f, %.4f (Germany)", p[0], p[1])
		}
	}
	for _, p := range [][2]float64{{4.35, 50.85}, {14.42, 50.08}, {16.37, 48.21}, {8.54, 47.37}} {
		if m.Covers(p[0], p[1]) {
			t.Errorf("GCG2016 answers at %.2f, %.2f, outside Germany's margin", p[0], p[1])
		}
		got, _ := m.Undulation(p[0], p[1])
		want, _ := EGM96().Undulation(p[0], p[1])
		if got != want {
			t.Errorf("default at %.2f, %.2f: %.4f, EGM96 %.4f", p[0], p[1], got, want)
		}
	}
}

// BenchmarkUndulation: one lookup of N in the default model (GCG2016) and
// in the EGM96 subset (the default before), at points over Germany.
func BenchmarkUndulation(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([][2]float64, 1024)
	for i := range pts {
		pts[i] = [2]float64{5.87 + rng.Float64()*9.17, 47.27 + rng.Float64()*7.79}
	}
	for _, m := range []*Model{Default(), EGM96()} {
		b.Run(strings.Fields(m.ID())[0], func(b *testing.B) {
			var sum float64
			for i := range b.N {
				p := pts[i&1023]
				v, _ := m.Undulation(p[0], p[1])
				sum += v
			}
			_ = sum
		})
	}
}

// TestEGM96AgainstGCG2016 measures what the switch of default changed:
// EGM96 - GCG2016 over Germany's bounding box (5.87-15.04° E,
// 47.27-55.06° N), at every GCG2016 node there with data and on a 0.1°
// lattice where GCG2016 has a value, and at Frankfurt and Berlin (figures
// in docs/height-model.md). It fails if the two models stop being the
// ones measured there.
func TestEGM96AgainstGCG2016(t *testing.T) {
	g, e := Default(), EGM96()
	diff := func(lon, lat float64) float64 {
		a, _ := e.Undulation(lon, lat)
		b, _ := g.undulation(lon, lat)
		return a - b
	}
	stats := func(name string, pts [][2]float64) (mean, sd, lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		var s, s2 float64
		var wlo, whi [2]float64
		for _, p := range pts {
			d := diff(p[0], p[1])
			s, s2 = s+d, s2+d*d
			if d < lo {
				lo, wlo = d, p
			}
			if d > hi {
				hi, whi = d, p
			}
		}
		n := float64(len(pts))
		mean, sd = s/n, math.Sqrt(s2/n-(s/n)*(s/n))
		t.Logf("%s: %d points, EGM96 - GCG2016 mean %+.3f m, sd %.3f m, range %+.3f m (%.2f E, %.2f N) .. %+.3f m (%.2f E, %.2f N)",
			name, len(pts), mean, sd, lo, wlo[0], wlo[1], hi, whi[0], whi[1])
		return
	}
	const w, s, east, n = 5.87, 47.27, 15.04, 55.06
	var nodes, lattice [][2]float64
	for r := range g.rows {
		for c := range g.cols {
			lon, lat := g.lon0+float64(c)*g.dlon, g.lat0+float64(r)*g.dlat
			if lon >= w && lon <= east && lat >= s && lat <= n && !math.IsNaN(float64(g.v[r*g.cols+c])) {
				nodes = append(nodes, [2]float64{lon, lat})
			}
		}
	}
	for lat := s; lat <= n+1e-9; lat += 0.1 {
		for lon := w; lon <= east+1e-9; lon += 0.1 {
			if g.Covers(lon, lat) {
				lattice = append(lattice, [2]float64{lon, lat})
			}
		}
	}
	// The seam of the default: the outermost GCG2016 nodes with data (a
	// neighbour without), where the default passes to EGM96.
	var seam [][2]float64
	for r := 1; r < g.rows-1; r++ {
		for c := 1; c < g.cols-1; c++ {
			nan := func(c, r int) bool { return math.IsNaN(float64(g.v[r*g.cols+c])) }
			lon, lat := g.lon0+float64(c)*g.dlon, g.lat0+float64(r)*g.dlat
			_, egm := e.Undulation(lon, lat) // the EGM96 subset starts at 4° E, GCG2016 at 3.26° E
			if egm && !nan(c, r) && (nan(c-1, r) || nan(c+1, r) || nan(c, r-1) || nan(c, r+1)) {
				seam = append(seam, [2]float64{lon, lat})
			}
		}
	}
	stats("seam (outermost GCG2016 nodes)", seam)
	mean, sd, lo, hi := stats("GCG2016 nodes", nodes)
	stats("0.1° lattice", lattice)
	fra, ber := diff(8.6821, 50.1109), diff(13.4050, 52.5200)
	t.Logf("Frankfurt (8.6821 E, 50.1109 N) %+.3f m, Berlin (13.4050 E, 52.5200 N) %+.3f m", fra, ber)
	if math.Abs(mean) > 0.2 || sd < 0.1 || sd > 0.4 || lo > -1.2 || hi < 0.4 || fra < 0.2 || fra > 0.4 || ber < 0.15 || ber > 0.35 {
		t.Errorf("EGM96 - GCG2016 no longer as documented: mean %.3f, sd %.3f, %.3f..%.3f, Frankfurt %.3f, Berlin %.3f", mean, sd, lo, hi, fra, ber)
	}
}

// BenchmarkParseGCG2016: what the first use of the default model costs
// (inflating and un-predicting the embedded GeoTIFF).
func BenchmarkParseGCG2016(b *testing.B) {
	for range b.N {
		if _, err := parseTIFF(gcg2016TIF, IDGCG2016); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadPROJDataGCG2016: PROJ-data's file given as --geoid loads (its
// GeoKeys name EPSG:10284, ETRS89/DREF91/2016, which was refused as not
// geographic) and stands alone: the same N as the default inside, nothing
// beyond its data.
func TestLoadPROJDataGCG2016(t *testing.T) {
	path, err := WriteGCG2016(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	a, ok1 := m.Undulation(8.6821, 50.1109)
	b, ok2 := Default().Undulation(8.6821, 50.1109)
	if !ok1 || !ok2 || a != b || m.ID() != "de_bkg_gcg2016.tif" || m.Attribution() != "" {
		t.Errorf("Frankfurt: file %.4f (%v), default %.4f (%v); ID %q", a, ok1, b, ok2, m.ID())
	}
	if _, ok := m.Undulation(4.35, 50.85); ok {
		t.Error("the file alone answered at Brussels")
	}
}
