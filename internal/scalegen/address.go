package scalegen

import (
	"fmt"

	"github.com/svc-geodata/svc/geo"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Address is one generated postal address, as written into the xAL of a
// building.
type Address struct {
	Street     string `json:"street"`
	Number     string `json:"number"`
	PostalCode string `json:"postal_code"`
	Locality   string `json:"locality"`
}

// Lot is a building of the template as the address generator sees it: its
// footprint centre in metres east and north of its km tile's south-west
// corner, and how many addresses it carries (those of its parts included).
type Lot struct {
	X, Y      float64
	Addresses int
}

// Geography of the generated addresses: a municipality is a block of
// townKM x townKM km tiles (NRW: 396 municipalities on 34,000 km², 86 km²
// each), a postcode area a block of postKM x postKM km inside it (NRW has
// some 1,700 postcodes), and a street holds about streetAddrs addresses
// of one km tile (the real tile's 99 make 5 streets).
const (
	townKM      = 8
	postKM      = 4
	streetAddrs = 20
	maxStreets  = 1000 / streetAddrs // per tile, a bound for the lots of one
)

// Addresser names the streets, house numbers, postcodes and localities of
// a synthetic state, the same for the same seed. Safe for concurrent use.
type Addresser struct {
	seed  uint64
	mu    sync.Mutex
	towns map[[2]int]*town
}

// town is one municipality: its name, how its authority writes addresses,
// and its streets by slot (local tile x streets per tile + street).
type town struct {
	name    string
	abbrev  bool // "Lindenstr." rather than "Lindenstraße" (as Berlin writes)
	upper   bool // "12A" rather than "12a"
	streets []string
}

// NewAddresser returns the address generator of seed.
func NewAddresser(seed uint64) *Addresser {
	return &Addresser{seed: seed, towns: map[[2]int]*town{}}
}

func floorDiv(a, b int) int { return int(math.Floor(float64(a) / float64(b))) }

func townOf(t Tile) [2]int { return [2]int{floorDiv(t.EKM, townKM), floorDiv(t.NKM, townKM)} }

// PostalCode is the postcode of tile t: one per postKM x postKM km block,
// unique within a window of 320 x 320 km (a state), neighbours alike.
func PostalCode(t Tile) string {
	bx, by := floorDiv(t.EKM, postKM), floorDiv(t.NKM, postKM)
	w := 320 / postKM
	i := ((by%w)+w)%w*w + ((bx%w)+w)%w
	return fmt.Sprintf("%05d", 40000+2*i)
}

// townName is the name of the municipality at block b: unique within a
// window of 320 x 320 km, most of them plain (Rodeheim), some with a head
// (Bad Rodeheim) or a river or region (Rodeheim an der Ruhr).
func (a *Addresser) townName(b [2]int) string {
	const w = 320 / townKM // blocks per window side
	i := ((b[1]%w)+w)%w*w + ((b[0]%w)+w)%w
	// A permutation of the window's blocks (the multiplier is coprime to
	// w*w): neighbours get unrelated names, and the seed shifts them.
	i = (i*997 + int(a.seed%(w*w))) % (w * w)
	plain := len(townStems) * len(townTails)
	tail, stem, r := townTails[i%len(townTails)], townStems[i/len(townTails)%len(townStems)], i/plain
	if r == 0 {
		return stem + tail
	}
	// r is 1 (w*w < 2*plain): a head or a variant, chosen by the plain
	// name's index k so the names stay unique.
	k := i % plain
	if k%2 == 1 {
		return stem + tail + townVariants[k/2%len(townVariants)]
	}
	head := townHeads[k/2%len(townHeads)]
	if strings.HasSuffix(head, " ") {
		return head + stem + tail // Bad Rodeheim
	}
	return head + strings.ToLower(stem) + tail // Altrodeheim
}

// town returns the municipality at block b, generating it once.
func (a *Addresser) town(b [2]int) *town {
	a.mu.Lock()
	defer a.mu.Unlock()
	if tw, ok := a.towns[b]; ok {
		return tw
	}
	rng := rand.New(rand.NewPCG(a.seed, uint64(uint32(b[0]))<<32|uint64(uint32(b[1]))))
	tw := &town{name: a.townName(b), abbrev: rng.IntN(4) == 0, upper: rng.IntN(7) == 0}
	var neighbours []string
	for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, 1}, {-1, 1}, {1, -1}} {
		neighbours = append(neighbours, a.townName([2]int{b[0] + d[0], b[1] + d[1]}))
	}
	seen := map[string]bool{}
	for len(tw.streets) < townKM*townKM*maxStreets {
		name := streetName(rng, neighbours)
		if k := streetKey(name); !seen[k] {
			seen[k] = true
			tw.streets = append(tw.streets, name)
		}
	}
	if tw.abbrev {
		for i, s := range tw.streets {
			tw.streets[i] = strings.ReplaceAll(strings.ReplaceAll(s, "straße", "str."), "Straße", "Str.")
		}
	}
	a.towns[b] = tw
	return tw
}

// streetName draws one street name: a common one (Zipf-like by rank: the
// rank's logarithm is uniform), a field name, a person or a neighbouring
// town.
func streetName(rng *rand.Rand, neighbours []string) string {
	switch u := rng.Float64(); {
	case u < 0.35:
		r := int(math.Exp(rng.Float64()*math.Log(float64(len(commonStreets)+1)))) - 1
		return commonStreets[min(r, len(commonStreets)-1)]
	case u < 0.65:
		head, tail := fieldHeads[rng.IntN(len(fieldHeads))], fieldTails[rng.IntN(len(fieldTails))]
		forms := fieldForms
		if feminineTails[tail] {
			forms = femForms
		}
		return fmt.Sprintf(forms[rng.IntN(len(forms))], head+tail)
	case u < 0.9:
		given, sur := givenNames[rng.IntN(len(givenNames))], surnames[rng.IntN(len(surnames))]
		return fmt.Sprintf(personForms[rng.IntN(len(personForms))], given+"-"+strings.ReplaceAll(sur, " ", "-"))
	default:
		n := neighbours[rng.IntN(len(neighbours))]
		for _, v := range townVariants {
			n = strings.TrimSuffix(n, v)
		}
		if strings.HasSuffix(n, "e") {
			n += "r"
		} else {
			n += "er"
		}
		return n + []string{" Straße", " Weg", " Straße", " Landstraße"}[rng.IntN(4)]
	}
}

// streetKey is what makes two street names the same for a user: case,
// umlauts and ß, spaces, hyphens and dots, "Straße" and "Str." (the
// address search keys them so too, lod2store.NormStreet).
func streetKey(s string) string {
	r := strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss", "Ä", "ae", "Ö", "oe", "Ü", "ue")
	s = strings.ToLower(r.Replace(s))
	s = strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return c
		}
		return -1
	}, s)
	return strings.ReplaceAll(s, "strasse", "str")
}

// Tile returns the addresses of the lots on tile t, by lot (nil for a lot
// without one). The lots with addresses, south to north, are cut into
// streets of about streetAddrs addresses; the numbers run west to east
// from 1 along each; a lot with several addresses gets consecutive numbers
// (7, 8) or letter suffixes (2, 2a, 2b), a tenth of the single ones a
// suffix alone (12a).
func (a *Addresser) Tile(t Tile, lots []Lot) [][]Address {
	tw := a.town(townOf(t))
	pc := PostalCode(t)
	lt := ((t.NKM%townKM)+townKM)%townKM*townKM + ((t.EKM%townKM)+townKM)%townKM
	out := make([][]Address, len(lots))
	var with []int
	total := 0
	for i, l := range lots {
		if l.Addresses > 0 {
			with = append(with, i)
			total += l.Addresses
		}
	}
	byY := func(i, j int) int { return cmpFloat(lots[i].Y, lots[j].Y, lots[i].X, lots[j].X) }
	byX := func(i, j int) int { return cmpFloat(lots[i].X, lots[j].X, lots[i].Y, lots[j].Y) }
	slices.SortStableFunc(with, byY)
	nStreets := min(maxStreets, max(1, (total+streetAddrs/2)/streetAddrs))
	var streets [][]int
	acc := 0
	for _, i := range with {
		g := min(nStreets-1, acc*nStreets/total)
		for len(streets) <= g {
			streets = append(streets, nil)
		}
		streets[g] = append(streets[g], i)
		acc += lots[i].Addresses
	}
	rng := rand.New(rand.NewPCG(a.seed^0x9e3779b97f4a7c15, uint64(uint32(t.EKM))<<32|uint64(uint32(t.NKM))))
	suffix := func(n, k int) string {
		c := byte('a' + k)
		if tw.upper {
			c = byte('A' + k)
		}
		return fmt.Sprintf("%d%c", n, c)
	}
	for g, idx := range streets {
		slices.SortStableFunc(idx, byX)
		street := tw.streets[lt*nStreets+g]
		n := 1
		for _, i := range idx {
			k := lots[i].Addresses
			letters := rng.IntN(2) == 0
			alone := rng.IntN(10) == 0
			for j := range k {
				num := fmt.Sprint(n + j)
				switch {
				case k == 1 && alone:
					num = suffix(n, 0)
				case k > 1 && letters && j > 0:
					num = suffix(n, j-1)
				case k > 1 && letters:
					num = fmt.Sprint(n)
				}
				out[i] = append(out[i], Address{Street: street, Number: num, PostalCode: pc, Locality: tw.name})
			}
			if k > 1 && !letters {
				n += k
			} else {
				n++
			}
		}
	}
	return out
}

// cmpFloat orders by a, then by b.
func cmpFloat(a0, a1, b0, b1 float64) int {
	switch {
	case a0 < a1:
		return -1
	case a0 > a1:
		return 1
	case b0 < b1:
		return -1
	case b0 > b1:
		return 1
	}
	return 0
}

// AddressStats counts the generated addresses and holds a sample of them
// with their buildings, for the runner's address lookups.
type AddressStats struct {
	Count      int `json:"count"`
	Buildings  int `json:"buildings"` // with at least one address
	Streets    int `json:"streets"`   // distinct (municipality, street name)
	Localities int `json:"localities"`
	PostCodes  int `json:"postcodes"`
	// Sample are sampleSize addresses spread over the tiles, each with the
	// gml:id of the building that carries it (its own or a part's).
	Sample []AddressProbe `json:"sample"`
	// Common are commonSize addresses on the street names most
	// municipalities have (CommonStreet), drawn from all tiles: the
	// lookup's worst case, one street key for thousands of addresses.
	Common []AddressProbe `json:"common"`
	// CommonKeyAddresses is how many addresses the most common of those
	// names holds.
	CommonKeyAddresses int `json:"common_key_addresses"`
}

const commonSize = 64

// CommonStreet reports whether street is one of the five street names the
// generator gives most municipalities (Hauptstraße, Schulstraße, ...), in
// any of its spellings.
func CommonStreet(street string) bool {
	k := streetKey(street)
	for _, c := range commonStreets[:5] {
		if streetKey(c) == k {
			return true
		}
	}
	return false
}

// AddressProbe is one generated address and its building.
type AddressProbe struct {
	Address
	GMLID string  `json:"gmlid"`
	Lon   float64 `json:"lon"` // the building's footprint centre, WGS84
	Lat   float64 `json:"lat"`
}

const sampleSize = 256

// addressStats counts the addresses Generate wrote and samples them.
func addressStats(seed uint64, tpl *template, tiles []Tile, zone geo.Zone) AddressStats {
	a, lots := NewAddresser(seed), tpl.lots()
	var st AddressStats
	towns, posts, streets := map[[2]int]bool{}, map[string]bool{}, map[string]bool{}
	for _, l := range lots {
		if l.Addresses > 0 {
			st.Buildings++
			st.Count += l.Addresses
		}
	}
	st.Buildings *= len(tiles)
	st.Count *= len(tiles)
	rng := rand.New(rand.NewPCG(seed, 25))
	perKey, seenCommon := map[string]int{}, 0
	for _, t := range tiles {
		towns[townOf(t)], posts[PostalCode(t)] = true, true
		for i, as := range a.Tile(t, lots) {
			for _, ad := range as {
				streets[ad.Locality+"\x00"+ad.Street] = true
				if !CommonStreet(ad.Street) {
					continue
				}
				perKey[streetKey(ad.Street)]++
				// A reservoir sample of the addresses on common names.
				seenCommon++
				p := probe(tpl, zone, t, i, ad)
				if len(st.Common) < commonSize {
					st.Common = append(st.Common, p)
				} else if j := rng.IntN(seenCommon); j < commonSize {
					st.Common[j] = p
				}
			}
		}
	}
	for _, n := range perKey {
		st.CommonKeyAddresses = max(st.CommonKeyAddresses, n)
	}
	st.Localities, st.PostCodes, st.Streets = len(towns), len(posts), len(streets)
	var with []int
	for i, l := range lots {
		if l.Addresses > 0 {
			with = append(with, i)
		}
	}
	for k := range sampleSize {
		t := tiles[k*len(tiles)/sampleSize]
		addrs := a.Tile(t, lots)
		bi := with[rng.IntN(len(with))]
		st.Sample = append(st.Sample, probe(tpl, zone, t, bi, addrs[bi][rng.IntN(len(addrs[bi]))]))
	}
	return st
}

// probe is address ad of building bi of tile t.
func probe(tpl *template, zone geo.Zone, t Tile, bi int, ad Address) AddressProbe {
	b := tpl.buildings[bi]
	dx, dy := float64(t.EKM-tpl.tile.EKM)*1000, float64(t.NKM-tpl.tile.NKM)*1000
	lon, lat := geo.FromUTM(zone, (b.minX+b.maxX)/2+dx, (b.minY+b.maxY)/2+dy)
	return AddressProbe{Address: ad, GMLID: tpl.rewriteID(b.id, TileCode(t)), Lon: lon, Lat: lat}
}

// TemplateLots reads a real LoD2 tile as Generate uses it (named
// LoD2_<zone>_<E>_<N>_1_<BL>.gml, building ids with the AdV prefix
// idPrefix) and returns its buildings as lots, in file order: what the
// address generator needs to address a tile without writing it.
func TemplateLots(path, idPrefix string) ([]Lot, error) {
	t, err := loadTemplate(path, idPrefix)
	if err != nil {
		return nil, err
	}
	return t.lots(), nil
}
