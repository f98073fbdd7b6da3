package scalegen

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

func nrwTemplate(t *testing.T) *template {
	t.Helper()
	tpl, err := loadTemplate(filepath.Join(testtool.Shared(t, "samples"), "real", "LoD2_32_280_5659_1_NW.gml"), "DENW")
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// TestGeneratedAddressesAsRead generates a small state and reads its LoD2
// files with the importer's CityGML reader: every building (and part)
// carries the addresses the generator made for it, with street, number,
// postcode and locality; the template's own addresses (all on two streets
// of Selfkant) are gone; each building has as many addresses as in the
// real tile; the manifest's sample names buildings that carry them.
func TestGeneratedAddressesAsRead(t *testing.T) {
	samples := testtool.Shared(t, "samples")
	dir := t.TempDir()
	m, err := Generate(context.Background(), Options{BL: "nrw", Scale: 3.0 / 34000, Seed: 7, Dir: dir, Samples: samples, PixelM: 4})
	if err != nil {
		t.Fatal(err)
	}
	tpl := nrwTemplate(t)
	a := NewAddresser(7)
	read := map[string][]Address{} // building gml:id -> addresses, its parts' after its own
	for _, tile := range m.Tiles {
		f, err := os.Open(filepath.Join(dir, "lod2", "LoD2_"+tile.Name(geo.Zone32)+"_1_NW.gml"))
		if err != nil {
			t.Fatal(err)
		}
		r := citygml.NewReader(f, f.Name())
		for {
			b, err := r.Next()
			if err != nil {
				break
			}
			var as []Address
			for _, ad := range b.Addresses {
				as = append(as, Address{ad.Street, ad.HouseNumber, ad.PostalCode, ad.Locality})
				if ad.Country != "Germany" {
					t.Errorf("%s: country %q", b.ID, ad.Country)
				}
			}
			for _, p := range b.BuildingParts {
				for _, ad := range p.Addresses {
					as = append(as, Address{ad.Street, ad.HouseNumber, ad.PostalCode, ad.Locality})
				}
			}
			read[b.ID] = as
		}
		f.Close()
		want := a.Tile(tile, tpl.lots())
		for i, b := range tpl.buildings {
			id := tpl.rewriteID(b.id, TileCode(tile))
			got, ok := read[id]
			if !ok {
				t.Fatalf("building %s not read", id)
			}
			// The reader lists a building's own addresses before its
			// parts'; the file has them in document order.
			if !slices.Equal(sortedAddrs(got), sortedAddrs(want[i])) {
				t.Errorf("%s: read %+v, generated %+v", id, got, want[i])
			}
			for _, ad := range got {
				if ad.Locality == "Selfkant" || ad.Street == "" || ad.Number == "" || len(ad.PostalCode) != 5 {
					t.Errorf("%s: address %+v", id, ad)
				}
			}
		}
	}
	if len(read) != m.LoD2.Buildings {
		t.Errorf("read %d buildings, generated %d", len(read), m.LoD2.Buildings)
	}
	hist := map[int]int{}
	n := 0
	for _, as := range read {
		hist[len(as)]++
		n += len(as)
	}
	// The real NRW tile: 22 buildings without, 76 with one, 10 with two,
	// 1 with three addresses (99 in all).
	if want := map[int]int{0: 22 * 3, 1: 76 * 3, 2: 10 * 3, 3: 3}; !maps.Equal(hist, want) || n != m.Addresses.Count || n != 99*3 {
		t.Errorf("addresses per building %v (%d in all, manifest %d), want %v", hist, n, m.Addresses.Count, want)
	}
	if len(m.Addresses.Sample) != sampleSize {
		t.Fatalf("sample of %d", len(m.Addresses.Sample))
	}
	if len(m.Addresses.Common) == 0 || m.Addresses.CommonKeyAddresses == 0 {
		t.Errorf("no address on a common street name: %d, %d", len(m.Addresses.Common), m.Addresses.CommonKeyAddresses)
	}
	for _, p := range append(m.Addresses.Sample, m.Addresses.Common...) {
		if !slices.Contains(read[p.GMLID], p.Address) {
			t.Errorf("sample %+v: building %s has %+v", p, p.GMLID, read[p.GMLID])
		}
	}
	for _, p := range m.Addresses.Common {
		if !CommonStreet(p.Street) {
			t.Errorf("common %+v", p)
		}
	}
}

// TestAddressesUnique generates the addresses of a 24 x 24 km block (9
// municipalities, 36 postcodes): every address is unique as a user types
// it (street key, number, postcode); street names are unique per
// municipality and repeat across them; postcodes and localities are
// constant per block; municipality names are unique over a state-size
// window; the same seed gives the same addresses.
func TestAddressesUnique(t *testing.T) {
	tpl := nrwTemplate(t)
	lots := tpl.lots()
	a, b := NewAddresser(3), NewAddresser(3)
	seen := map[string]Tile{}
	townStreets := map[string]map[string]string{} // locality -> street key -> name
	pcOf, locOf := map[[2]int]string{}, map[[2]int]string{}
	all := 0
	for e := 400; e < 424; e++ {
		for n := 5696; n < 5720; n++ {
			tile := Tile{e, n}
			got := a.Tile(tile, lots)
			if !slices.EqualFunc(got, b.Tile(tile, lots), slices.Equal) {
				t.Fatalf("tile %v differs between two generators of the same seed", tile)
			}
			for _, as := range got {
				for _, ad := range as {
					all++
					k := streetKey(ad.Street) + " " + strings.ToLower(ad.Number) + " " + ad.PostalCode
					if o, dup := seen[k]; dup {
						t.Fatalf("%+v on %v and %v", ad, o, tile)
					}
					seen[k] = tile
					if townStreets[ad.Locality] == nil {
						townStreets[ad.Locality] = map[string]string{}
					}
					sk := streetKey(ad.Street)
					if o, ok := townStreets[ad.Locality][sk]; ok && o != ad.Street {
						t.Errorf("%s: streets %q and %q key alike", ad.Locality, o, ad.Street)
					}
					townStreets[ad.Locality][sk] = ad.Street
					for _, c := range []struct {
						m   map[[2]int]string
						key [2]int
						v   string
					}{{pcOf, [2]int{floorDiv(e, postKM), floorDiv(n, postKM)}, ad.PostalCode}, {locOf, townOf(tile), ad.Locality}} {
						if o, ok := c.m[c.key]; ok && o != c.v {
							t.Fatalf("block %v: %q and %q", c.key, o, c.v)
						}
						c.m[c.key] = c.v
					}
				}
			}
		}
	}
	if all != 99*24*24 || len(locOf) != 9 || len(pcOf) != 36 {
		t.Errorf("%d addresses, %d localities, %d postcodes", all, len(locOf), len(pcOf))
	}
	if vs := slices.Compact(slices.Sorted(maps.Values(pcOf))); len(vs) != 36 {
		t.Errorf("postcodes %v not unique", vs)
	}
	inAll := 0
	for k := range townStreets[locOf[[2]int{50, 713}]] {
		shared := 0
		for _, ss := range townStreets {
			if _, ok := ss[k]; ok {
				shared++
			}
		}
		if shared == len(townStreets) {
			inAll++
		}
	}
	if inAll == 0 {
		t.Errorf("no street name in every municipality (Hauptstraße should be)")
	}
	names := map[string][2]int{}
	for x := range 40 {
		for y := range 40 {
			nm := a.townName([2]int{x, y})
			if o, dup := names[nm]; dup {
				t.Fatalf("municipality name %q at %v and %v", nm, o, [2]int{x, y})
			}
			names[nm] = [2]int{x, y}
		}
	}
	t.Logf("%d addresses; e.g. %+v; municipalities %v", all, a.Tile(Tile{400, 5700}, lots)[5], slices.Sorted(maps.Values(locOf)))
}

func sortedAddrs(as []Address) []Address {
	return slices.SortedFunc(slices.Values(as), func(a, b Address) int {
		return strings.Compare(a.Street+"\x00"+a.Number, b.Street+"\x00"+b.Number)
	})
}
