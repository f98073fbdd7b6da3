package lod2store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/internal/testtool"
)

// writeGeneratedState writes a pack of side x side km tiles addressed by
// make bench-scale's generator (internal/scalegen: the real NRW tile's
// buildings with addresses, municipalities of 8 x 8 km) and returns it with
// sampleN probes (an address and its building) drawn from it. Only the
// buildings with an address are written, as boxes.
func writeGeneratedState(tb testing.TB, lots []scalegen.Lot, side, sampleN int) (*LoD2, []scalegen.AddressProbe, int) {
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
	var probes []scalegen.AddressProbe
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
	return s, probes, count
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
// (no HTTP). The p50 over the sizes is what docs/performance.md
// extrapolates to a state (NRW: some 5.5 million addresses).
func BenchmarkFindAddressesScale(b *testing.B) {
	lots := templateLots(b)
	for _, side := range []int{8, 16, 32, 64} {
		b.Run(fmt.Sprintf("tiles=%d", side*side), func(b *testing.B) {
			t0 := time.Now()
			s, probes, count := writeGeneratedState(b, lots, side, 200)
			b.Logf("%d km², %d addresses written in %.1f s", side*side, count, time.Since(t0).Seconds())
			var qs []scalegen.AddressQuery
			for _, p := range probes {
				qs = append(qs, scalegen.Queries(p)...)
			}
			parsed := make([]AddressQuery, len(qs))
			for i, q := range qs {
				var err error
				if parsed[i], err = ParseAddress(q.Text); err != nil {
					b.Fatal(err)
				}
			}
			found := 0
			for i, q := range parsed { // also builds the street index
				hits, err := s.FindAddresses(context.Background(), q, 10)
				if err != nil {
					b.Fatal(err)
				}
				p := qs[i].Probe
				if len(hits) > 0 && (hits[0].GMLID == p.GMLID || qs[i].Kind == "city" && hits[0].Street == p.Street && hits[0].Locality == p.Locality) {
					found++
				}
			}
			byKind := map[string][]time.Duration{}
			var all []time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				k := i % len(qs)
				t0 := time.Now()
				if _, err := s.FindAddresses(context.Background(), parsed[k], 10); err != nil {
					b.Fatal(err)
				}
				d := time.Since(t0)
				all = append(all, d)
				byKind[qs[k].Kind] = append(byKind[qs[k].Kind], d)
				i++
			}
			b.ReportMetric(quantileMS(all, 0.5), "p50-ms")
			b.ReportMetric(quantileMS(all, 0.99), "p99-ms")
			for _, k := range []string{"exact", "misspelt", "city"} {
				b.ReportMetric(quantileMS(byKind[k], 0.5), "p50-"+k+"-ms")
			}
			b.ReportMetric(100*float64(found)/float64(len(qs)), "top-hit-%")
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
