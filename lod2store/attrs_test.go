package lod2store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
)

func f64(v float64) *float64 { return &v }

// attrBuilding is a box building with attributes, one part and addresses.
func attrBuilding(i int, x, y float64, street, number, postcode, city string) BuildingInput {
	n := int64(i % 5)
	return BuildingInput{GMLID: fmt.Sprintf("DEBE%08d", i), PartIDs: []string{fmt.Sprintf("DEBE%08d_p", i)}, Valid: true,
		Surfaces: prism(x, y, 10, 10, 30, 8+float64(i%7)),
		Attrs: []AttrsInput{
			{GMLID: fmt.Sprintf("DEBE%08d", i), Functions: []Code{{Value: []string{"31001_1000", "31001_2000", "31001_1010"}[i%3], Space: "http://x/fn"}},
				RoofType: Code{Value: "1000"}, MeasuredHeightM: f64(8 + float64(i%7)), Storeys: &n, CreationDate: "2020-12-18",
				Addresses: []Address{{Street: street, HouseNumber: number, PostalCode: postcode, Locality: city, Country: "Germany"}},
				Generic:   []Generic{{Name: "Gemeindeschluessel", Type: "stringAttribute", Value: "11000000"}, {Name: "DatenquelleDachhoehe", Type: "intAttribute", Value: "1000"}}},
			{GMLID: fmt.Sprintf("DEBE%08d_p", i), ParentID: fmt.Sprintf("DEBE%08d", i), RoofType: Code{Value: "3100"}},
		},
		Measures: &MeasuresInput{FootprintAreaM2: 100, FootprintSource: "ground", GroundZ: 30, EavesZ: 38 + float64(i%7), RidgeZ: 38 + float64(i%7),
			RoofAreaM2: [4]float64{100, 0, 0, 0}, RoofAreaTotalM2: 100, WallAreaM2: 320, VolumeM3: 800},
	}
}

// writeAttrTown writes buildings with the given addresses (street, number,
// postcode, city) and opens the file.
func writeAttrTown(t testing.TB, addrs [][4]string) (*LoD2, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lod2.sqlite")
	w, err := CreateLoD2(context.Background(), path, 25833)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range addrs {
		if err := w.Add(context.Background(), attrBuilding(i, 390000+float64(i%100)*30, 5819000+float64(i/100)*30, a[0], a[1], a[2], a[3])); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Finish(context.Background(), map[string]string{"bl": "be"}); err != nil {
		t.Fatal(err)
	}
	s, err := OpenLoD2(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestAttributesRoundTrip(t *testing.T) {
	s, _ := writeAttrTown(t, [][4]string{{"Unter den Linden", "77", "10117", "Berlin"}, {"Müllerstraße", "12a", "13353", "Berlin"}})
	a, err := s.Attributes(context.Background(), "DEBE00000001_p") // by a part's id
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Owners) != 2 || a.Owners[0].GMLID != "DEBE00000001" || a.Owners[1].ParentGMLID != "DEBE00000001" || a.Owners[1].Part != 1 {
		t.Fatalf("owners %+v", a.Owners)
	}
	o := a.Owners[0]
	if len(o.Functions) != 1 || o.Functions[0].Code != "31001_2000" || o.Functions[0].Space != "http://x/fn" || o.Functions[0].De == "" || o.Functions[0].En == "" {
		t.Errorf("function %+v", o.Functions)
	}
	if o.RoofType == nil || o.RoofType.Code != "1000" || o.RoofType.De != "Flachdach" {
		t.Errorf("roof type %+v", o.RoofType)
	}
	if *o.MeasuredHeightM != 9 || *o.Storeys != 1 || *o.CreationDate != "2020-12-18" || *o.MunicipalityKey != "11000000" || *o.SourceRoof != "1000" || o.SourceGround != nil {
		t.Errorf("values %+v", o)
	}
	if len(o.Addresses) != 1 || o.Addresses[0] != (Address{"Müllerstraße", "12a", "13353", "Berlin", "Germany"}) || len(a.Owners[1].Addresses) != 0 {
		t.Errorf("addresses %+v", o.Addresses)
	}
	if len(o.Generic) != 2 || o.Generic[1] != (Generic{Name: "DatenquelleDachhoehe", Type: "intAttribute", Value: "1000"}) {
		t.Errorf("generic %+v", o.Generic)
	}
	m := a.Measures
	if *m.FootprintAreaM2 != 100 || *m.HeightM != 9 || *m.VolumeM3 != 800 || m.VolumeReason != nil || *m.RoofAreaFlatM2 != 100 {
		t.Errorf("measures %+v", m)
	}
	if a.Lon < 13 || a.Lon > 14 || a.Lat < 52 || a.Lat > 53 {
		t.Errorf("point %v %v", a.Lon, a.Lat)
	}
	if _, err := s.Attributes(context.Background(), "DEBE_nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// TestOlderSchemaRefused: a pack without lod2_schema (written before the
// attributes) is refused on open with a message saying to re-import.
func TestOlderSchemaRefused(t *testing.T) {
	_, path := writeAttrTown(t, [][4]string{{"A-Straße", "1", "10115", "Berlin"}})
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM svc_metadata WHERE key = 'lod2_schema'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = OpenLoD2(context.Background(), path)
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "import the BL again") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("open an older pack: %v", err)
	}
	if srcs, _, err := ReadSources(context.Background(), path); err != nil || len(srcs) != 0 {
		t.Errorf("sources of an older pack: %v %v (nothing is reused from it)", srcs, err)
	}
}

func TestQueryBuildings(t *testing.T) {
	var addrs [][4]string
	for i := range 257 {
		addrs = append(addrs, [4]string{"Weg", fmt.Sprint(i), "10115", "Berlin"})
	}
	s, _ := writeAttrTown(t, addrs)
	bb := geo.BBox{MinLon: 13, MinLat: 52, MaxLon: 13.5, MaxLat: 53}
	for _, tc := range []struct {
		name string
		q    BuildingQuery
		keep func(i int) bool
		less func(a, b int) int
	}{
		{"all", BuildingQuery{}, func(int) bool { return true }, func(a, b int) int { return a - b }},
		{"function", BuildingQuery{Where: "function = ?", Args: []any{"31001_1000"}}, func(i int) bool { return i%3 == 0 }, func(a, b int) int { return a - b }},
		{"height desc", BuildingQuery{Where: "height_m > ?", Args: []any{10.5}, Sort: []Sort{{Name: "height_m", Desc: true}}},
			func(i int) bool { return 8+i%7 > 10 }, func(a, b int) int {
				if a%7 != b%7 {
					return b%7 - a%7
				}
				return a - b
			}},
		{"storeys then function", BuildingQuery{Sort: []Sort{{Name: "storeys"}, {Name: "function", Desc: true}}, BBox: &bb},
			func(int) bool { return true }, func(a, b int) int {
				if a%5 != b%5 {
					return a%5 - b%5
				}
				fa, fb := []string{"31001_1000", "31001_2000", "31001_1010"}[a%3], []string{"31001_1000", "31001_2000", "31001_1010"}[b%3]
				if c := strings.Compare(fb, fa); c != 0 {
					return c
				}
				return a - b
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			var idx []int
			for i := range addrs {
				if tc.keep(i) {
					idx = append(idx, i)
				}
			}
			slices.SortStableFunc(idx, tc.less)
			for _, i := range idx {
				want = append(want, fmt.Sprintf("DEBE%08d", i))
			}
			for _, limit := range []int{1, 10, 1000} {
				var got []string
				q := tc.q
				q.Limit = limit
				for pages := 0; ; pages++ {
					p, err := s.QueryBuildings(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range p.Rows {
						got = append(got, r.Owner.GMLID)
					}
					if p.Next == "" || pages > 300 {
						break
					}
					q.After = p.Next
				}
				if !slices.Equal(got, want) {
					t.Fatalf("limit %d: %d buildings %v..., want %d %v...", limit, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
				}
			}
		})
	}
	far := geo.BBox{MinLon: 6, MinLat: 50, MaxLon: 6.1, MaxLat: 50.1}
	if p, err := s.QueryBuildings(context.Background(), BuildingQuery{BBox: &far, Limit: 10}); err != nil || len(p.Rows) != 0 {
		t.Errorf("far bbox: %v %v", p.Rows, err)
	}
	if _, err := s.QueryBuildings(context.Background(), BuildingQuery{Sort: []Sort{{Name: "geom"}}, Limit: 10}); !errors.Is(err, ErrInput) {
		t.Errorf("sort by a non-queryable: %v", err)
	}
	if _, err := s.QueryBuildings(context.Background(), BuildingQuery{After: "eyJ4Ijox", Limit: 10}); !errors.Is(err, ErrCursor) {
		t.Errorf("bad cursor: %v", err)
	}
}

func TestNormalise(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Müllerstraße", "muellerstr"}, {"Muellerstrasse", "muellerstr"}, {"Müller-Str.", "muellerstr"}, {"MÜLLER STR", "muellerstr"},
		{"Straße des 17. Juni", "strdes17juni"}, {"Str. d. 17. Juni", "strd17juni"}, {"Rue de Château", "ruedechateau"},
	} {
		if got := NormStreet(tc.in); got != tc.want {
			t.Errorf("NormStreet(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := NormNumber(" 12 A "); got != "12a" {
		t.Errorf("NormNumber = %q", got)
	}
}

func TestParseAddress(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want AddressQuery
	}{
		{"Unter den Linden 77, 10117 Berlin", AddressQuery{"Unter den Linden", "77", "10117", "Berlin"}},
		{"Müllerstr. 12 a Berlin", AddressQuery{"Müllerstr.", "12a", "", "Berlin"}},
		{"Straße des 17. Juni 135", AddressQuery{"Straße des 17. Juni", "135", "", ""}},
		{"Hauptstraße, 50667 Köln", AddressQuery{"Hauptstraße", "", "50667", "Köln"}},
		{"Hauptstraße 5 50667", AddressQuery{"Hauptstraße", "5", "50667", ""}},
		{"Alexanderplatz", AddressQuery{"Alexanderplatz", "", "", ""}},
	} {
		got, err := ParseAddress(tc.q)
		if err != nil || got != tc.want {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %+v", tc.q, got, err, tc.want)
		}
	}
	for _, q := range []string{"", "12", "10117 Berlin", " , "} {
		if _, err := ParseAddress(q); !errors.Is(err, ErrInput) {
			t.Errorf("ParseAddress(%q): %v, want ErrInput", q, err)
		}
	}
}

// TestFindAddresses: the lookup table - misspellings, "Str.", umlauts,
// suffixes, postcodes.
func TestFindAddresses(t *testing.T) {
	s, _ := writeAttrTown(t, [][4]string{
		{"Unter den Linden", "77", "10117", "Berlin"},     // 0
		{"Müllerstraße", "12a", "13353", "Berlin"},        // 1
		{"Müllerstraße", "12", "13353", "Berlin"},         // 2
		{"Karl-Marx-Allee", "1", "10178", "Berlin"},       // 3
		{"Straße des 17. Juni", "135", "10623", "Berlin"}, // 4
		{"Hauptstraße", "5", "10827", "Berlin"},           // 5
		{"Hauptstraße", "5", "50667", "Köln"},             // 6
		{"Hauptstraße", "51", "10827", "Berlin"},          // 7
	})
	for _, tc := range []struct {
		q    string
		want []int // buildings, best first (the first must be the top hit)
	}{
		{"Unter den Linden 77", []int{0}},
		{"unter den linden 77, 10117 Berlin", []int{0}},
		{"Unter den Lindn 77", []int{0}},         // a letter missing
		{"Untre den Linden 77", []int{0}},        // letters swapped
		{"Muellerstr. 12a", []int{1}},            // umlaut folded, Str.
		{"Müller Strasse 12 A", []int{1}},        // split, Strasse, spaced suffix
		{"Mullerstrasse 12a", []int{1}},          // umlaut dropped
		{"Müllerstr 12", []int{2, 1}},            // exact number first, the suffixed one after
		{"Karl Marx Allee 1", []int{3}},          // hyphens
		{"Str. des 17. Juni 135", []int{4}},      // abbreviated at the start
		{"Hauptstr. 5, 50667 Köln", []int{6, 5}}, // postcode decides
		{"Hauptstr. 5 Koeln", []int{6, 5}},       // city, folded
		{"Hauptstraße 5, 10827", []int{5, 6}},    // "5" is no prefix of "51"
		{"Unter den Linden", []int{0}},           // no number
		{"Nirgendwostraße 1", nil},
	} {
		t.Run(tc.q, func(t *testing.T) {
			q, err := ParseAddress(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := s.FindAddresses(context.Background(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.GMLID)
			}
			var want []string
			for _, i := range tc.want {
				want = append(want, fmt.Sprintf("DEBE%08d", i))
			}
			if !slices.Equal(got, want) {
				t.Errorf("q %+v: got %v, want %v (%+v)", q, got, want, hits)
			}
			if len(hits) > 0 && (hits[0].Lon < 13 || hits[0].Lat < 52) {
				t.Errorf("point %v %v", hits[0].Lon, hits[0].Lat)
			}
		})
	}
}

// BenchmarkFindAddresses looks up addresses in a file of 200,000 buildings
// on 100,000 distinct street names, a third of the queries misspelt. The
// cost of a lookup grows with the distinct street keys (the fuzzy
// candidates) and only logarithmically with the addresses (index
// lookups): Berlin has about 10,000 streets, Bavaria some 100,000 street
// names across its municipalities.
func BenchmarkFindAddresses(b *testing.B) {
	const n, streets = 200_000, 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	name := func(i int) string {
		syl := []string{"ber", "lin", "hau", "pt", "mül", "ler", "lin", "den", "ka", "rl", "ma", "rx", "sch", "lo", "ss", "wei", "de", "nau"}
		var sb strings.Builder
		for j, k := 0, i; j < 3 || k > 0; j, k = j+1, k/len(syl) {
			sb.WriteString(syl[k%len(syl)])
		}
		return strings.ToUpper(sb.String()[:1]) + sb.String()[1:] + []string{"straße", "weg", "allee", "platz"}[i%4]
	}
	addrs := make([][4]string, n)
	for i := range addrs {
		st := rng.IntN(streets)
		addrs[i] = [4]string{name(st), fmt.Sprint(1 + rng.IntN(200)), fmt.Sprintf("%05d", 10000+st%500), "Berlin"}
	}
	s, _ := writeAttrTown(b, addrs)
	qs := make([]AddressQuery, 999)
	wantStreet := make([]string, len(qs))
	for i := range qs {
		a := addrs[rng.IntN(n)]
		st := a[0]
		if i%3 == 0 { // one letter dropped
			k := 1 + rng.IntN(len(st)-2)
			st = st[:k] + st[k+1:]
		}
		qs[i], wantStreet[i] = AddressQuery{Street: st, Number: a[1], Locality: a[3]}, a[0]
	}
	found := 0
	for i, q := range qs { // also builds the street index
		hits, err := s.FindAddresses(context.Background(), q, 10)
		if err != nil {
			b.Fatal(err)
		}
		if len(hits) > 0 && hits[0].Street == wantStreet[i] {
			found++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	var took, fuzzy []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.FindAddresses(context.Background(), qs[i%len(qs)], 10); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		took = append(took, d)
		if i%3 == 0 {
			fuzzy = append(fuzzy, d)
		}
		i++
	}
	ms := func(ds []time.Duration, q float64) float64 {
		slices.Sort(ds)
		return float64(ds[int(float64(len(ds)-1)*q)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(took, 0.5), "p50-ms")
	b.ReportMetric(ms(took, 0.99), "p99-ms")
	b.ReportMetric(ms(fuzzy, 0.5), "p50-misspelt-ms")
	b.ReportMetric(100*float64(found)/float64(len(qs)), "top-hit-%")
}

// TestQueryBuildingsIn pages a federated building query over two BL
// through its cursor and requires every building of both exactly once,
// in the order of a sort in Go by the sort values, BL and id.
func TestQueryBuildingsIn(t *testing.T) {
	var a1, a2 [][4]string
	for i := range 61 {
		a1 = append(a1, [4]string{"Weg", fmt.Sprint(i), "10115", "Berlin"})
	}
	for i := range 47 {
		a2 = append(a2, [4]string{"Pfad", fmt.Sprint(i), "10115", "Berlin"})
	}
	s1, _ := writeAttrTown(t, a1)
	s2, _ := writeAttrTown(t, a2)
	srcs := []Source{{BL: "sn", LoD2: s2}, {BL: "be", LoD2: s1}}
	type row struct {
		bl string
		i  int
	}
	var all []row
	for i := range a1 {
		all = append(all, row{"be", i})
	}
	for i := range a2 {
		all = append(all, row{"sn", i})
	}
	for _, tc := range []struct {
		name string
		sort []Sort
		less func(a, b row) int
	}{
		{"default", nil, func(a, b row) int { return strings.Compare(a.bl, b.bl)*1000 + a.i - b.i }},
		{"height desc", []Sort{{Name: "height_m", Desc: true}}, func(a, b row) int {
			if a.i%7 != b.i%7 {
				return b.i%7 - a.i%7
			}
			return strings.Compare(a.bl, b.bl)*1000 + a.i - b.i
		}},
	} {
		want := slices.Clone(all)
		slices.SortFunc(want, tc.less)
		var ws []string
		for _, r := range want {
			ws = append(ws, fmt.Sprintf("%s/DEBE%08d", r.bl, r.i))
		}
		for _, limit := range []int{1, 7, 1000} {
			q := BuildingQuery{Sort: tc.sort, Limit: limit}
			var got []string
			for pages := 0; pages < 200; pages++ {
				p, err := QueryBuildingsIn(context.Background(), srcs, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Rows {
					got = append(got, r.BL+"/"+r.Owner.GMLID)
				}
				if p.Next == "" {
					break
				}
				q.After = p.Next
			}
			if !slices.Equal(got, ws) {
				t.Errorf("%s limit %d: %d rows %v..., want %d %v...", tc.name, limit, len(got), got[:min(8, len(got))], len(ws), ws[:8])
			}
		}
	}
	if _, err := QueryBuildingsIn(context.Background(), srcs[:1], BuildingQuery{Limit: 5, After: encodeFed(t, map[string]string{"be": "x"})}); !errors.Is(err, ErrCursor) {
		t.Errorf("cursor of an unpublished BL: %v", err)
	}
}

func encodeFed(t *testing.T, m map[string]string) string {
	t.Helper()
	b, _ := json.Marshal(m)
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestFindAddressesCommonStreet: a street name every town has (80 towns
// with a Hauptstraße of 20 houses: 1,600 addresses under one key, as a
// state's Hauptstraßen are) is found in the town or postcode asked for,
// with and without a house number, whichever town was imported first.
func TestFindAddressesCommonStreet(t *testing.T) {
	var addrs [][4]string
	for town := range 80 {
		for n := 1; n <= 20; n++ {
			addrs = append(addrs, [4]string{"Hauptstraße", fmt.Sprint(n), fmt.Sprintf("%05d", 40000+2*town), fmt.Sprintf("Stadt %s", string(rune('A'+town%26))+fmt.Sprint(town))})
		}
	}
	s, _ := writeAttrTown(t, addrs)
	for _, town := range []int{0, 41, 79} {
		city, pc := addrs[town*20][3], addrs[town*20][2]
		for _, tc := range []struct {
			q    string
			want int // index into addrs, -1: any address in the town
		}{
			{fmt.Sprintf("Hauptstraße 5, %s", city), town*20 + 4},
			{fmt.Sprintf("Hauptstr. 5, %s %s", pc, city), town*20 + 4},
			{fmt.Sprintf("Hauptstraße 17, %s", pc), town*20 + 16},
			{fmt.Sprintf("Hauptstrase 1, %s", city), town * 20},
			{fmt.Sprintf("Hauptstraße, %s", city), -1},
			{fmt.Sprintf("Hauptstraße, %s", pc), -1},
		} {
			q, err := ParseAddress(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := s.FindAddresses(context.Background(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case len(hits) == 0:
				t.Errorf("%q: nothing found", tc.q)
			case tc.want >= 0 && hits[0].GMLID != fmt.Sprintf("DEBE%08d", tc.want):
				t.Errorf("%q: first %s %s %s %s, want %v", tc.q, hits[0].GMLID, hits[0].HouseNumber, hits[0].PostalCode, hits[0].Locality, addrs[tc.want])
			case tc.want < 0 && (hits[0].Locality != city || len(hits) < 10):
				t.Errorf("%q: %d hits, the first in %s", tc.q, len(hits), hits[0].Locality)
			}
		}
	}
}
