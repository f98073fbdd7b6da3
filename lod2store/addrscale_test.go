package lod2store

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/internal/testtool"
)

// addrScaleSides are the sides (km) of the generated states
// BenchmarkFindAddressesScale looks up: N, 4N, 16N and 64N km² by default;
// 128 (16,384 km², 1.6 million addresses) takes some 10 minutes to write.
var addrScaleSides = flag.String("addrscale.sides", "8,16,32,64", "sides in km of the generated states of BenchmarkFindAddressesScale, comma-separated")

// writeGeneratedState writes a pack of side x side km tiles addressed by
// make bench-scale's generator (internal/scalegen: the real NRW tile's
// buildings with addresses, municipalities of 8 x 8 km) and returns it with
// sampleN probes (an address and its building) drawn from it, and as many
// on the most common street names (scalegen.CommonStreet). Only the
// buildings with an address are written, as boxes.
func writeGeneratedState(tb testing.TB, lots []scalegen.Lot, side, sampleN int) (*LoD2, []scalegen.AddressProbe, []scalegen.AddressProbe, int) {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "lod2.sqlite")
	w, err := CreateLoD2(ctx, path, 25832)
	if err != nil {
		tb.Fatal(err)
	}
	a := scalegen.NewAddresser(1)
	const e0, n0 = 344, 5648 // km, the corner of a municipality in NRW
	rng := rand.New(rand.NewPCG(1, 2))
	count := 0
	var probes, common []scalegen.AddressProbe
	seenCommon := 0
	pick := map[int]bool{}
	for len(pick) < sampleN {
		pick[rng.IntN(side*side)*len(lots)+rng.IntN(len(lots))] = true
	}
	for k := range side * side {
		t := scalegen.Tile{EKM: e0 + k%side, NKM: n0 + k/side}
		for i, as := range a.Tile(t, lots) {
			if len(as) == 0 {
				continue
			}
			id := fmt.Sprintf("DENW%s%05d", scalegen.TileCode(t), i)
			x, y := float64(t.EKM)*1000+lots[i].X, float64(t.NKM)*1000+lots[i].Y
			in := BuildingInput{GMLID: id, Valid: true, Surfaces: prism(x-5, y-5, 10, 10, 60, 8), Attrs: []AttrsInput{{GMLID: id}}}
			for _, ad := range as {
				in.Attrs[0].Addresses = append(in.Attrs[0].Addresses, Address{Street: ad.Street, HouseNumber: ad.Number, PostalCode: ad.PostalCode, Locality: ad.Locality, Country: "Germany"})
			}
			if err := w.Add(ctx, in); err != nil {
				tb.Fatal(err)
			}
			count += len(as)
			if pick[k*len(lots)+i] {
				probes = append(probes, scalegen.AddressProbe{Address: as[rng.IntN(len(as))], GMLID: id})
			}
			for _, ad := range as {
				if !scalegen.CommonStreet(ad.Street) {
					continue
				}
				p := scalegen.AddressProbe{Address: ad, GMLID: id}
				if seenCommon++; len(common) < sampleN {
					common = append(common, p)
				} else if j := rng.IntN(seenCommon); j < sampleN {
					common[j] = p
				}
			}
		}
	}
	if _, err := w.Finish(ctx, map[string]string{"bl": "nrw"}); err != nil {
		tb.Fatal(err)
	}
	s, err := OpenLoD2(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, probes, common, count
}

func templateLots(tb testing.TB) []scalegen.Lot {
	tb.Helper()
	lots, err := scalegen.TemplateLots(filepath.Join(testtool.Shared(tb, "samples"), "real", "LoD2_32_280_5659_1_NW.gml"), "DENW")
	if err != nil {
		tb.Fatal(err)
	}
	return lots
}

// BenchmarkFindAddressesScale looks addresses up in packs of N, 4N and 16N
// km tiles of make bench-scale's generated addresses (99 per km, streets
// and municipalities as scalegen makes them), with the query mix of the
// scale run (scalegen.AddrKinds) from 200 sampled addresses, in process
// (no HTTP); p50 and p99 are over that mix. The exact and street+city
// queries of 200 addresses on the commonest names (Hauptstraße, ...) are
// sent too and reported apart (p50-common-*): their street key grows with
// the number of municipalities. The p50 over the sizes is what
// docs/performance.md extrapolates to a state (NRW: some 5.5 million
// addresses).
func BenchmarkFindAddressesScale(b *testing.B) {
	lots := templateLots(b)
	for _, f := range strings.Split(*addrScaleSides, ",") {
		side, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || side < 1 {
			b.Fatalf("-addrscale.sides: %q", f)
		}
		b.Run(fmt.Sprintf("tiles=%d", side*side), func(b *testing.B) {
			t0 := time.Now()
			s, probes, common, count := writeGeneratedState(b, lots, side, 200)
			b.Logf("%d km², %d addresses written in %.1f s", side*side, count, time.Since(t0).Seconds())
			var qs []scalegen.AddressQuery
			for _, p := range probes {
				qs = append(qs, scalegen.Queries(p)...)
			}
			// The queries of the common names, as kinds of their own.
			for _, p := range common {
				for _, q := range scalegen.Queries(p) {
					if q.Kind == "exact" || q.Kind == "city" {
						q.Kind = "common-" + q.Kind
						qs = append(qs, q)
					}
				}
			}
			parsed := make([]AddressQuery, len(qs))
			for i, q := range qs {
				var err error
				if parsed[i], err = ParseAddress(q.Text); err != nil {
					b.Fatal(err)
				}
			}
			found, sent := 0, 0
			for i, q := range parsed { // also builds the street index
				hits, err := s.FindAddresses(context.Background(), q, 10)
				if err != nil {
					b.Fatal(err)
				}
				p, city := qs[i].Probe, strings.HasSuffix(qs[i].Kind, "city")
				sent++
				if len(hits) > 0 && (!city && hits[0].GMLID == p.GMLID || city && hits[0].Street == p.Street && hits[0].Locality == p.Locality) {
					found++
				} else {
					b.Logf("%s %q: not found first", qs[i].Kind, qs[i].Text)
				}
			}
			byKind := map[string][]time.Duration{}
			var all []time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			uniform := len(probes) * len(scalegen.AddrKinds)
			for b.Loop() {
				k := i % len(qs)
				t0 := time.Now()
				if _, err := s.FindAddresses(context.Background(), parsed[k], 10); err != nil {
					b.Fatal(err)
				}
				d := time.Since(t0)
				if k < uniform {
					all = append(all, d)
				}
				byKind[qs[k].Kind] = append(byKind[qs[k].Kind], d)
				i++
			}
			b.ReportMetric(quantileMS(all, 0.5), "p50-ms")
			b.ReportMetric(quantileMS(all, 0.99), "p99-ms")
			for _, k := range []string{"exact", "misspelt", "city", "common-exact", "common-city"} {
				b.ReportMetric(quantileMS(byKind[k], 0.5), "p50-"+k+"-ms")
			}
			b.ReportMetric(quantileMS(byKind["common-city"], 0.99), "p99-common-city-ms")
			b.ReportMetric(100*float64(found)/float64(sent), "top-hit-%")
			b.ReportMetric(float64(count), "addresses")
		})
	}
}

func quantileMS(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[int(float64(len(ds)-1)*q)].Microseconds()) / 1000
}
