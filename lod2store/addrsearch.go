package lod2store

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// AddressHit is one address found by FindAddresses: the building (its
// gml:id, that of the building even when the address is a part's), the
// address as written, the building's point (WGS84, the centre of its
// bounding box) and the match score (1 a perfect match).
type AddressHit struct {
	BL                                        string
	GMLID                                     string
	Street, HouseNumber, PostalCode, Locality string
	Country                                   string
	Lon, Lat                                  float64
	Score                                     float64
}

// streetIndex is the in-memory index of a pack's distinct street keys, for
// the fuzzy part of the address search: the keys sorted (prefix ranges)
// and their trigrams. Built from the pack's addresses_street index on the
// first search (a scan of the distinct keys).
type streetIndex struct {
	keys    []string
	grams   map[string][]int32 // trigram -> indexes in keys, ascending
	scratch sync.Pool          // *gramScratch
}

// gramScratch counts the trigrams a query shares with each key.
type gramScratch struct {
	count   []uint16 // by key index; zero between uses
	touched []int32
}

// maxStreetCandidates bounds the streets a query is looked up under.
const maxStreetCandidates = 8

func trigrams(k string, f func(g string)) {
	p := "^" + k + "$"
	for i := 0; i+3 <= len(p); i++ {
		f(p[i : i+3])
	}
}

// streets returns the pack's street index, building it once.
func (s *LoD2) streets(ctx context.Context) (*streetIndex, error) {
	s.streetMu.Lock()
	defer s.streetMu.Unlock()
	if s.streetIdx != nil {
		return s.streetIdx, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT street_key FROM addresses ORDER BY street_key`)
	if err != nil {
		return nil, fmt.Errorf("store: street index: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("store: street index: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: street index: %w", err)
	}
	s.streetIdx = newStreetIndex(keys)
	return s.streetIdx, nil
}

// newStreetIndex indexes the sorted distinct street keys ("" skipped).
func newStreetIndex(keys []string) *streetIndex {
	ix := &streetIndex{grams: map[string][]int32{}}
	for _, k := range keys {
		if k == "" {
			continue
		}
		i := int32(len(ix.keys))
		ix.keys = append(ix.keys, k)
		trigrams(k, func(g string) {
			if l := ix.grams[g]; len(l) == 0 || l[len(l)-1] != i {
				ix.grams[g] = append(l, i)
			}
		})
	}
	ix.scratch.New = func() any { return &gramScratch{count: make([]uint16, len(ix.keys))} }
	return ix
}

// streetCand is a street key a query may mean and how alike they are.
type streetCand struct {
	key string
	sim float64
}

// candidates returns the street keys key may mean, best first: the key
// itself, keys it is a prefix of (at least 4 letters typed), and keys
// within an edit distance of a quarter of their length (at least 1),
// found through shared trigrams.
func (ix *streetIndex) candidates(key string) []streetCand {
	var out []streetCand
	seen := map[string]bool{}
	add := func(k string, sim float64) {
		if !seen[k] {
			seen[k] = true
			out = append(out, streetCand{k, sim})
		}
	}
	i := sort.SearchStrings(ix.keys, key)
	if i < len(ix.keys) && ix.keys[i] == key {
		add(key, 1)
	}
	if len(key) >= 4 {
		for j := i; j < len(ix.keys) && strings.HasPrefix(ix.keys[j], key) && j < i+maxStreetCandidates; j++ {
			add(ix.keys[j], 0.9*float64(len(key))/float64(len(ix.keys[j])))
		}
	}
	if len(out) > 0 && out[0].sim == 1 {
		return out[:min(len(out), maxStreetCandidates)] // spelt as stored
	}
	// Trigram counts; a key within edit distance d shares at least
	// n - 3d of the query's n trigrams. Trigrams most keys have ("str$")
	// are not counted: n shrinks by as many.
	sc := ix.scratch.Get().(*gramScratch)
	defer ix.scratch.Put(sc)
	n := 0
	trigrams(key, func(g string) {
		l := ix.grams[g]
		if len(l) > len(ix.keys)/8+64 {
			return
		}
		n++
		for _, j := range l {
			if sc.count[j] == 0 {
				sc.touched = append(sc.touched, j)
			}
			sc.count[j]++
		}
	})
	count := sc.touched
	defer func() {
		for _, j := range sc.touched {
			sc.count[j] = 0
		}
		sc.touched = sc.touched[:0]
	}()
	maxD := max(1, len(key)/4)
	type scored struct {
		j int32
		c int
	}
	var best []scored
	for _, j := range count {
		// A key longer or shorter by more than maxD is farther than maxD:
		// it would only take a place among those checked below (the
		// many "...lstr" a state has crowded out "talstr" for "tlstr").
		if c, d := int(sc.count[j]), len(ix.keys[j])-len(key); c >= n-3*maxD && d <= maxD && -d <= maxD {
			best = append(best, scored{j, c})
		}
	}
	slices.SortFunc(best, func(a, b scored) int {
		if a.c != b.c {
			return b.c - a.c
		}
		return int(a.j - b.j)
	})
	for _, b := range best[:min(len(best), 4*maxStreetCandidates)] {
		k := ix.keys[b.j]
		if d := levenshtein(key, k, maxD); d <= maxD {
			add(k, 1-float64(d)/float64(max(len(key), len(k))))
		}
	}
	slices.SortStableFunc(out, func(a, b streetCand) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
	return out[:min(len(out), maxStreetCandidates)]
}

// strasseTypo returns the candidates of key with a misspelt "strasse" at
// its end ("hauptstrase", "bergsrasse", "hohestrsse": within 2 edits)
// keyed as "str", their similarity lowered by the edits: the fuzzy match
// of candidates allows a quarter of the key's letters, and the seven of
// "strasse" are keyed as three.
func (ix *streetIndex) strasseTypo(key string) []streetCand {
	best, bestD := 0, 3
	for l := 5; l <= 9 && l+2 <= len(key); l++ {
		if d := levenshtein(key[len(key)-l:], "strasse", 2); d < bestD {
			best, bestD = l, d
		}
	}
	if best == 0 || bestD == 0 {
		return nil
	}
	cs := ix.candidates(key[:len(key)-best] + "str")
	for i := range cs {
		cs[i].sim = min(cs[i].sim, 1-float64(bestD)/float64(len(key)))
	}
	return cs
}

// levenshtein is the edit distance of a and b (bytes), or max+1 when it
// exceeds max.
func levenshtein(a, b string, maxD int) int {
	if d := len(a) - len(b); d > maxD || -d > maxD {
		return maxD + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		if rowMin > maxD {
			return maxD + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// FindAddresses returns up to limit addresses of the file matching q,
// best first (see AddressHit.Score): the street is looked up under the
// candidates its key may mean; a given house number must equal the
// address's or be its number without the letter suffix ("5" finds "5a");
// a given postcode or locality that differs lowers the score. Errors are
// the file's.
func (s *LoD2) FindAddresses(ctx context.Context, q AddressQuery, limit int) ([]AddressHit, error) {
	key := NormStreet(q.Street)
	if key == "" || limit <= 0 {
		return nil, nil
	}
	ix, err := s.streets(ctx)
	if err != nil {
		return nil, err
	}
	num, loc := NormNumber(q.Number), NormText(q.Locality)
	cands := ix.candidates(key)
	if len(cands) == 0 {
		cands = ix.strasseTypo(key)
	}
	var out []AddressHit
	for _, c := range cands {
		hits, err := s.addressesOn(ctx, c, num, q.PostalCode, loc, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, hits...)
	}
	sortHits(out)
	return out[:min(len(out), limit)], nil
}

// addressesOn scores the addresses on street c. A street name most towns
// have (Hauptstraße: one key for thousands of addresses in a state) holds
// more rows than a lookup reads, so when the query names a locality or
// postcode, the rows in that locality (index addresses_place), or else in
// that postcode, are read first; the street's other rows then only fill
// the answer up to limit (the lowest numbers, in index order), or, when
// the place had none, up to 50 x limit are read and scored.
func (s *LoD2) addressesOn(ctx context.Context, c streetCand, num, postcode, loc string, limit int) ([]AddressHit, error) {
	args := []any{c.key, 50 * limit, num, postcode, loc}
	number := ""
	if num != "" {
		// The number itself or it with a letter suffix: between "5" and
		// "5{" ('{' follows 'z') for the index range, "5" or "5" and a
		// letter on the index entry (not "51"), checked in scanAddresses.
		number = ` AND a.number_key >= ?3 AND a.number_key < ?3 || '{' AND (a.number_key = ?3 OR a.number_key GLOB ?3 || '[a-z]*')`
	}
	seen := map[[2]string]bool{}
	var out []AddressHit
	var err error
	if loc != "" {
		if out, err = s.scanAddresses(ctx, `a.street_key = ?1 AND a.locality_key = ?5`+number, args, c, num, postcode, loc, seen, out); err != nil {
			return nil, err
		}
	}
	if postcode != "" && len(out) == 0 {
		if out, err = s.scanAddresses(ctx, `a.street_key = ?1 AND a.postal_code = ?4`+number, args, c, num, postcode, loc, seen, out); err != nil {
			return nil, err
		}
	}
	if len(out) >= limit {
		return out, nil
	}
	if len(out) > 0 {
		args[1] = limit + len(out) // fill-ins: the place's rows may come again
	}
	out, err = s.scanAddresses(ctx, `a.street_key = ?1`+number, args, c, num, postcode, loc, seen, out)
	return out, err
}

// scanAddresses reads the addresses where holds (at most args[1]) and
// appends those it has not seen, scored.
func (s *LoD2) scanAddresses(ctx context.Context, where string, args []any, c streetCand, num, postcode, loc string, seen map[[2]string]bool, out []AddressHit) ([]AddressHit, error) {
	q := `SELECT b.gmlid, a.street, a.house_number, a.postal_code, a.locality, a.country, a.number_key, a.locality_key, b.lon, b.lat
FROM addresses a JOIN building_attrs b ON b.building_id = a.building_id AND b.part = 0
WHERE ` + where + ` ORDER BY a.number_key, a.building_id, a.part, a.seq LIMIT ?2`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: addresses: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h AddressHit
		var nk, lk string
		if err := rows.Scan(&h.GMLID, &h.Street, &h.HouseNumber, &h.PostalCode, &h.Locality, &h.Country, &nk, &lk, &h.Lon, &h.Lat); err != nil {
			return nil, fmt.Errorf("store: addresses: %w", err)
		}
		score := 0.6 * c.sim
		switch {
		case num == "":
		case nk == num:
			score += 0.3
		case isLetters(nk[len(num):]):
			score += 0.2
		default:
			continue // "5" is no prefix of "51" as a house number
		}
		if postcode != "" && h.PostalCode == postcode || loc != "" && lk == loc {
			score += 0.1
		} else if postcode == "" && loc == "" {
			score += 0.1 * 0.5
		}
		h.Score = round3(score)
		k := [2]string{h.GMLID, h.Street + "\x00" + h.HouseNumber + "\x00" + h.PostalCode}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, h)
	}
	return out, rows.Err()
}

func isLetters(s string) bool {
	for i := range len(s) {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// sortHits orders hits by score, then BL, street, number and gml:id.
func sortHits(hs []AddressHit) {
	slices.SortStableFunc(hs, func(a, b AddressHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.BL+"\x00"+a.Street+"\x00"+a.HouseNumber+"\x00"+a.GMLID, b.BL+"\x00"+b.Street+"\x00"+b.HouseNumber+"\x00"+b.GMLID)
	})
}

// FindAddressesIn is FindAddresses over several BL: each file's hits, with
// their BL, merged by score. A file that fails ends the search with its
// error.
func FindAddressesIn(ctx context.Context, sources []Source, q AddressQuery, limit int) ([]AddressHit, error) {
	var out []AddressHit
	for _, src := range sources {
		hs, err := src.LoD2.FindAddresses(ctx, q, limit)
		if err != nil {
			return nil, fmt.Errorf("store: addresses of %s: %w", src.BL, err)
		}
		for i := range hs {
			hs[i].BL = src.BL
		}
		out = append(out, hs...)
	}
	sortHits(out)
	return out[:min(len(out), limit)], nil
}

// streetState is the lazily built street index of an open file.
type streetState struct {
	streetMu  sync.Mutex
	streetIdx *streetIndex
}
