package geo

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// runCs2cs pipes "a b" lines through cs2cs with the given arguments and returns
// the first two output columns of each line.
func runCs2cs(t *testing.T, bin string, in [][2]float64, args ...string) [][2]float64 {
	t.Helper()
	var buf bytes.Buffer
	for _, p := range in {
		// Shortest exact decimal, so cs2cs sees the very same doubles.
		fmt.Fprintf(&buf, "%s %s\n", strconv.FormatFloat(p[0], 'f', -1, 64), strconv.FormatFloat(p[1], 'f', -1, 64))
	}
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Stdin = &buf
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cs2cs %v: %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(in) {
		t.Fatalf("cs2cs %v: %d output lines for %d inputs", args, len(lines), len(in))
	}
	res := make([][2]float64, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Fatalf("cs2cs line %d: %q", i, l)
		}
		for j := range 2 {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				t.Fatalf("cs2cs line %d: %v", i, err)
			}
			res[i][j] = v
		}
	}
	return res
}

// TestCs2csLive compares 2,000 seeded random points per zone and direction
// with PROJ's cs2cs, run at test time: lon/lat over 5..16 E, 47..55.5 N
// projected into both zones, and eastings/northings over the same area back.
func TestCs2csLive(t *testing.T) {
	bin := testtool.Require(t, "cs2cs", "apt-get install proj-bin")
	const count = 2000
	rng := rand.New(rand.NewPCG(2025, 32))
	latLon := make([][2]float64, count) // EPSG:4326 axis order for cs2cs
	for i := range latLon {
		latLon[i] = [2]float64{47 + 8.5*rng.Float64(), 5 + 11*rng.Float64()}
	}
	en := make([][2]float64, count)
	for i := range en {
		en[i] = [2]float64{150000 + 700000*rng.Float64(), 5200000 + 970000*rng.Float64()}
	}
	for _, z := range []Zone{Zone32, Zone33} {
		t.Run(z.String()+"/forward", func(t *testing.T) {
			want := runCs2cs(t, bin, latLon, "-d", "6", "EPSG:4326", z.String())
			worst := 0.0
			for i, p := range latLon {
				e, n := ToUTM(z, p[1], p[0])
				d := math.Hypot(e-want[i][0], n-want[i][1])
				worst = math.Max(worst, d)
				if d > tolFwdM {
					t.Errorf("ToUTM(%v, %v, %v) = %.6f, %.6f; cs2cs %.6f, %.6f", z, p[1], p[0], e, n, want[i][0], want[i][1])
				}
			}
			t.Logf("worst forward deviation %.3g m", worst)
		})
		t.Run(z.String()+"/inverse", func(t *testing.T) {
			want := runCs2cs(t, bin, en, "-d", "12", z.String(), "EPSG:4326")
			worst := 0.0
			for i, p := range en {
				lon, lat := FromUTM(z, p[0], p[1])
				d := math.Max(math.Abs(lon-want[i][1]), math.Abs(lat-want[i][0]))
				worst = math.Max(worst, d)
				if d > tolInvDeg {
					t.Errorf("FromUTM(%v, %v, %v) = %.12f, %.12f; cs2cs %.12f, %.12f", z, p[0], p[1], lon, lat, want[i][1], want[i][0])
				}
			}
			t.Logf("worst inverse deviation %.3g deg", worst)
		})
	}
}
