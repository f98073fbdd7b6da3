// Command boundarygen writes bl/boundaries.geojson, the generalised state
// boundaries package bl embeds, from the state layer (Ebene Länder) of BKG's
// VG5000 (dl-de/by-2-0, © GeoBasis-DE / BKG) as a WGS84 GeoJSON file, such as
// geojson/Ebene_Länder.geojson of github.com/Praesklepios/geoGermany
// (VG5000 of 2021-01-01). It merges the features of each state (land,
// coastal waters and the Bodensee parts share the state's ARS key),
// simplifies every ring with Douglas-Peucker at -tolerance metres and rounds
// coordinates to 4 decimals (about 10 m). See bl/README.md.
//
//	go run ./internal/boundarygen -src Ebene_Länder.geojson -out boundaries.geojson
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
)

// codes maps the ARS key of a state to its bl code.
var codes = map[string]string{
	"01": "sh", "02": "hh", "03": "ni", "04": "hb", "05": "nrw", "06": "he", "07": "rp", "08": "bw",
	"09": "by", "10": "sl", "11": "be", "12": "bb", "13": "mv", "14": "sn", "15": "st", "16": "th",
}

type feature struct {
	Properties map[string]any `json:"properties"`
	Geometry   struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
}

type pt = [2]float64

func main() {
	src := flag.String("src", "", "VG5000 state layer as WGS84 GeoJSON")
	out := flag.String("out", "boundaries.geojson", "output file")
	tol := flag.Float64("tolerance", 300, "Douglas-Peucker tolerance in metres")
	flag.Parse()
	if err := run(*src, *out, *tol); err != nil {
		fmt.Fprintln(os.Stderr, "boundarygen:", err)
		os.Exit(1)
	}
}

func run(src, out string, tol float64) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var fc struct {
		Features []feature `json:"features"`
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		return err
	}
	polys := map[string][][][]pt{}
	before, after := 0, 0
	for _, f := range fc.Features {
		ars, _ := f.Properties["ARS"].(string)
		code, ok := codes[ars]
		if !ok {
			return fmt.Errorf("feature with unknown ARS %q", ars)
		}
		var mp [][][]pt
		switch f.Geometry.Type {
		case "Polygon":
			var p [][]pt
			err = json.Unmarshal(f.Geometry.Coordinates, &p)
			mp = [][][]pt{p}
		case "MultiPolygon":
			err = json.Unmarshal(f.Geometry.Coordinates, &mp)
		default:
			err = fmt.Errorf("geometry type %s", f.Geometry.Type)
		}
		if err != nil {
			return fmt.Errorf("ARS %s: %w", ars, err)
		}
		for _, p := range mp {
			var sp [][]pt
			for _, r := range p {
				before += len(r)
				s := simplify(r, tol)
				after += len(s)
				sp = append(sp, s)
			}
			polys[code] = append(polys[code], sp)
		}
	}
	keys := make([]string, 0, len(polys))
	for k := range polys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `{"type":"FeatureCollection","source":"VG5000 state layer (Ebene Länder), 2021-01-01","license":"dl-de/by-2-0","attribution":"© GeoBasis-DE / BKG 2021 (Daten verändert)","simplification_m":%g,"features":[`, tol)
	for i, k := range keys {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		c, _ := json.Marshal(round(polys[k]))
		fmt.Fprintf(w, "\n{\"type\":\"Feature\",\"properties\":{\"code\":%q},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":%s}}", k, c)
	}
	fmt.Fprint(w, "\n]}\n")
	fmt.Fprintf(os.Stderr, "%d states, %d vertices simplified to %d\n", len(keys), before, after)
	return w.Close()
}

func round(mp [][][]pt) [][][][2]json.Number {
	out := make([][][][2]json.Number, len(mp))
	for i, p := range mp {
		out[i] = make([][][2]json.Number, len(p))
		for j, r := range p {
			out[i][j] = make([][2]json.Number, len(r))
			for k, v := range r {
				out[i][j][k] = [2]json.Number{num(v[0]), num(v[1])}
			}
		}
	}
	return out
}

func num(v float64) json.Number {
	return json.Number(fmt.Sprintf("%.4f", math.Round(v*1e4)/1e4))
}

// simplify runs Douglas-Peucker on a closed ring with tolerance tolM metres
// (lon scaled by the cosine of the ring's first latitude); a ring that would
// collapse below 4 points (a small island) is simplified with ever smaller
// tolerances until it keeps a shape.
func simplify(r []pt, tolM float64) []pt {
	if len(r) < 5 {
		return r
	}
	for t := tolM; t > 1; t /= 2 {
		keep := make([]bool, len(r))
		keep[0], keep[len(r)-1] = true, true
		// Split the closed ring at its point farthest from the start so the
		// two halves are open lines.
		far, fd := 0, -1.0
		for i, p := range r {
			if d := dist(p, r[0]); d > fd {
				far, fd = i, d
			}
		}
		keep[far] = true
		dp(r, 0, far, t, keep)
		dp(r, far, len(r)-1, t, keep)
		var s []pt
		for i, k := range keep {
			if k {
				s = append(s, r[i])
			}
		}
		if len(s) >= 4 {
			return s
		}
	}
	return r
}

func dp(r []pt, a, b int, t float64, keep []bool) {
	if b <= a+1 {
		return
	}
	idx, md := -1, 0.0
	for i := a + 1; i < b; i++ {
		if d := segDist(r[i], r[a], r[b]); d > md {
			idx, md = i, d
		}
	}
	if md > t {
		keep[idx] = true
		dp(r, a, idx, t, keep)
		dp(r, idx, b, t, keep)
	}
}

const mPerDeg = 111320.0

func xy(p, o pt) (float64, float64) {
	return (p[0] - o[0]) * mPerDeg * math.Cos(o[1]*math.Pi/180), (p[1] - o[1]) * mPerDeg
}

func dist(p, q pt) float64 {
	x, y := xy(p, q)
	return math.Hypot(x, y)
}

// segDist is the distance in metres from p to the segment a-b.
func segDist(p, a, b pt) float64 {
	px, py := xy(p, a)
	bx, by := xy(b, a)
	l := bx*bx + by*by
	t := 0.0
	if l > 0 {
		t = math.Max(0, math.Min(1, (px*bx+py*by)/l))
	}
	return math.Hypot(px-t*bx, py-t*by)
}
