package bl

import (
	"strings"
	"testing"
)

func TestAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		lon, lat float64
		want     string
	}{
		{"Berlin Mitte", 13.405, 52.52, "be"},
		{"Potsdam", 13.0645, 52.3906, "bb"},
		{"Köln", 6.9583, 50.9413, "nrw"},
		{"Aachen", 6.0839, 50.7753, "nrw"},
		{"Frankfurt", 8.6821, 50.1109, "he"},
		{"München", 11.5755, 48.1374, "by"},
		{"Lauf an der Pegnitz", 11.278, 49.51, "by"},
		{"Kiel", 10.1228, 54.3233, "sh"},
		{"Helgoland", 7.885, 54.182, "sh"},
		{"Bremen", 8.8017, 53.0793, "hb"},
		{"Bremerhaven", 8.58, 53.55, "hb"},
		{"Hamburg", 9.9937, 53.5511, "hh"},
		{"Rostock", 12.0991, 54.0924, "mv"},
		{"Dresden", 13.7373, 51.0504, "sn"},
		{"Erfurt", 11.0299, 50.9848, "th"},
		{"Magdeburg", 11.6276, 52.1205, "st"},
		{"Hannover", 9.732, 52.3759, "ni"},
		{"Mainz", 8.2473, 49.9929, "rp"},
		{"Saarbrücken", 6.9969, 49.2402, "sl"},
		{"Stuttgart", 9.1829, 48.7758, "bw"},
		{"Paris", 2.3522, 48.8566, ""},
		{"North Sea, far out", 5.5, 55.5, ""},
	} {
		st, ok := At(tc.lon, tc.lat)
		if ok != (tc.want != "") || st.Code != tc.want {
			t.Errorf("%s: At(%g, %g) = %q %v, want %q", tc.name, tc.lon, tc.lat, st.Code, ok, tc.want)
		}
	}
}

func TestTally(t *testing.T) {
	t.Parallel()
	be, _ := Lookup("be")
	bb, _ := Lookup("bb")
	by, _ := Lookup("by")
	grid := func(lon0, lat0, dLon, dLat float64) [][2]float64 {
		var pts [][2]float64
		for i := range 10 {
			for j := range 10 {
				pts = append(pts, [2]float64{lon0 + dLon*float64(i)/9, lat0 + dLat*float64(j)/9})
			}
		}
		return pts
	}
	berlin := grid(13.37, 52.49, 0.03, 0.018)  // about 2 km x 2 km in Berlin's centre
	border := grid(13.075, 52.40, 0.06, 0.018) // Potsdam/Berlin-Wannsee, 4 km straddling the border
	for _, tc := range []struct {
		name      string
		st        State
		pts       [][2]float64
		min, max  float64
		wantWhere string
	}{
		{"Berlin tile as be", be, berlin, 1, 1, "Berlin (be)"},
		{"Berlin tile as bb", bb, berlin, 0, 0, "Berlin (be)"},
		{"Berlin tile as by", by, berlin, 0, 0, "Berlin (be)"},
		{"border tile as be", be, border, 1, 1, "Brandenburg (bb)"},
		{"border tile as bb", bb, border, 1, 1, "Brandenburg (bb)"},
	} {
		tl := NewTally(tc.st, BorderMarginM)
		for _, p := range tc.pts {
			tl.Add(p[0], p[1])
		}
		if f := tl.Fraction(); f < tc.min || f > tc.max {
			t.Errorf("%s: fraction %.2f, want %.2f..%.2f", tc.name, f, tc.min, tc.max)
		}
		if w := tl.Where(); !strings.HasPrefix(w, tc.wantWhere) {
			t.Errorf("%s: where %q, want it to start with %q", tc.name, w, tc.wantWhere)
		}
	}
}

func TestBoundariesComplete(t *testing.T) {
	t.Parallel()
	bs := loadBoundaries()
	for _, s := range All() {
		b := bs[s.Code]
		if b == nil || len(b.polys) == 0 {
			t.Errorf("%s: no boundary", s.Code)
		}
	}
	if n := len(boundariesJSON); n > 200_000 {
		t.Errorf("boundaries take %d bytes, want them generalised to under 200 kB", n)
	}
}

// BenchmarkTallyAdd measures the per-point cost of the import check (one
// point per building for LoD2): points over Bavaria, the state with the
// most vertices, judged as by and as he (outside: distances to every edge).
func BenchmarkTallyAdd(b *testing.B) {
	by, _ := Lookup("by")
	he, _ := Lookup("he")
	for _, st := range []State{by, he} {
		b.Run(st.Code, func(b *testing.B) {
			t := NewTally(st, BorderMarginM)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				t.Add(10.5+float64(i%100)*0.02, 48.0+float64(i/100%100)*0.02)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}
