package lod2store

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/internal/scalegen"
)

// TestStreetCandidatesAtScale: the distinct street keys of 16,384 km² of
// make bench-scale's generated addresses (27,000 keys, the many "...ring"
// and "...weg" of a state): a name with one letter dropped (scalegen's
// misspelt query) has the street meant among its candidates, the short
// common names too.
func TestStreetCandidatesAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1.6 million addresses")
	}
	lots := templateLots(t)
	a := scalegen.NewAddresser(1)
	set := map[string]bool{}
	var streets []string
	for k := range 128 * 128 {
		for _, as := range a.Tile(scalegen.Tile{EKM: 344 + k%128, NKM: 5648 + k/128}, lots) {
			for _, ad := range as {
				if key := NormStreet(ad.Street); !set[key] {
					set[key] = true
					streets = append(streets, ad.Street)
				}
			}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	ix := newStreetIndex(keys)
	// Short common names a state has in every town, a letter dropped:
	// before, the 32 keys checked by edit distance were those sharing
	// most trigrams, ties in key order, and "...lstr" crowded them out.
	for _, c := range [][2]string{{"Tlstr.", "Talstraße"}, {"Wetring", "Westring"}, {"Rigstraße", "Ringstraße"}, {"Kichstraße", "Kirchstraße"}, {"Kichweg", "Kirchweg"}} {
		if !slices.ContainsFunc(ix.candidates(NormStreet(c[0])), func(sc streetCand) bool { return sc.key == NormStreet(c[1]) }) {
			t.Errorf("%s: %s not among the candidates %v", c[0], c[1], ix.candidates(NormStreet(c[0])))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	missed := 0
	const n = 2000
	for range n {
		st := streets[rng.IntN(len(streets))]
		q, err := ParseAddress(scalegen.Queries(scalegen.AddressProbe{Address: scalegen.Address{Street: st, Number: "1", Locality: "X"}})[2].Text)
		if err != nil {
			t.Fatal(err)
		}
		want := NormStreet(st)
		if !slices.ContainsFunc(ix.candidates(NormStreet(q.Street)), func(c streetCand) bool { return c.key == want }) {
			missed++
			if missed <= 10 {
				t.Logf("%q (%s): not among the candidates of %q", st, want, q.Street)
			}
		}
	}
	t.Logf("%d distinct keys; %d of %d misspelt names miss the street meant", len(keys), missed, n)
	if missed > n/100 {
		t.Errorf("%d of %d misspelt names miss the street meant", missed, n)
	}
}
