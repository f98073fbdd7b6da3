package scalerun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/svc-geodata/svc/internal/scalegen"
)

// AddrLoad is what the runner measured of GET /v1/addresses.
type AddrLoad struct {
	Queries int `json:"queries"` // the mix: sample size x len(scalegen.AddrKinds)
	// FirstMs is the first lookup after the bbox load (it builds the
	// street index of the pack).
	FirstMs float64 `json:"first_ms"`
	// One client, warm (after a pass over the mix), for the load duration.
	Serial Latency `json:"serial"`
	// Conns clients for the load duration.
	Concurrent Latency `json:"concurrent"`
	// P50ByKind is the serial median per query kind (scalegen.AddrKinds;
	// and "common exact", "common city": the queries of addresses on the
	// names most municipalities have, sent 5 times each apart from the
	// loads). P99ByKind is the 99th percentile of the common ones.
	P50ByKind map[string]float64 `json:"p50_ms_by_kind"`
	P99ByKind map[string]float64 `json:"p99_ms_by_kind"`
	// CommonKeyAddresses is how many addresses the most common street key
	// holds (scalegen.AddressStats).
	CommonKeyAddresses int `json:"common_key_addresses"`
	// Found counts the queries of each kind whose best match is the
	// generated building (city: an address on the generated street and
	// city), out of Sent.
	Found map[string]int `json:"found"`
	Sent  map[string]int `json:"sent"`
	// MaxPointM is the largest distance between an answered point and
	// the generated building's footprint centre, in metres.
	MaxPointM float64 `json:"max_point_m"`
	Non200    int     `json:"non_200"`
}

// Latency is a measured request load.
type Latency struct {
	Conns    int     `json:"conns"`
	Requests int     `json:"requests"`
	ReqPerS  float64 `json:"req_per_s"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
}

type addrAnswer struct {
	Matches []struct {
		GMLID   string `json:"gmlid"`
		Address struct {
			Street   string `json:"street"`
			Locality string `json:"locality"`
		} `json:"address"`
		Point struct {
			Coordinates [2]float64 `json:"coordinates"`
		} `json:"point"`
	} `json:"matches"`
}

// addressLoad measures the address lookup: the first lookup, a judged pass
// over the mix, then one client and sv.Conns clients for sv.DurationS
// each.
func addressLoad(ctx context.Context, c *http.Client, base string, in scalegen.AddressStats, sv *Serve) error {
	var qs, common []scalegen.AddressQuery
	for _, p := range in.Sample {
		qs = append(qs, scalegen.Queries(p)...)
	}
	// The common names (scalegen.CommonStreet): an exact query and one
	// with street and city, timed apart from the mix.
	for _, p := range in.Common {
		for _, q := range scalegen.Queries(p) {
			if q.Kind == "exact" || q.Kind == "city" {
				q.Kind = "common " + q.Kind
				common = append(common, q)
			}
		}
	}
	if len(qs) == 0 {
		return nil
	}
	al := AddrLoad{Queries: len(qs), Found: map[string]int{}, Sent: map[string]int{}, P50ByKind: map[string]float64{}}
	get := func(q scalegen.AddressQuery) (time.Duration, []byte, error) {
		t0 := time.Now()
		resp, err := c.Get(base + "/v1/addresses?q=" + url.QueryEscape(q.Text))
		if err != nil {
			return 0, nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: %s", resp.Status, body)
		}
		return d, body, err
	}
	d, _, err := get(qs[0])
	if err != nil {
		return fmt.Errorf("scalerun: address lookup %q: %w", qs[0].Text, err)
	}
	al.FirstMs = ms(d)
	commonMs := map[string][]time.Duration{}
	for i, q := range append(slices.Clip(qs), common...) { // the judged pass, which also warms the caches
		d, body, err := get(q)
		if err != nil {
			return fmt.Errorf("scalerun: address lookup %q: %w", q.Text, err)
		}
		var a addrAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			return fmt.Errorf("scalerun: address lookup %q: %w", q.Text, err)
		}
		al.Sent[q.Kind]++
		if i >= len(qs) {
			commonMs[q.Kind] = append(commonMs[q.Kind], d)
		}
		if len(a.Matches) == 0 {
			continue
		}
		m := a.Matches[0]
		if strings.HasSuffix(q.Kind, "city") && m.Address.Street == q.Probe.Street && m.Address.Locality == q.Probe.Locality ||
			!strings.HasSuffix(q.Kind, "city") && m.GMLID == q.Probe.GMLID {
			al.Found[q.Kind]++
		}
		if m.GMLID == q.Probe.GMLID {
			al.MaxPointM = max(al.MaxPointM, metres(m.Point.Coordinates, q.Probe.Lon, q.Probe.Lat))
		}
	}
	// Four more passes over the common names, for their medians.
	for range 4 {
		for _, q := range common {
			if d, _, err := get(q); err == nil {
				commonMs[q.Kind] = append(commonMs[q.Kind], d)
			}
		}
	}
	al.P99ByKind = map[string]float64{}
	for k, v := range commonMs {
		l := latency(v, time.Second)
		al.P50ByKind[k], al.P99ByKind[k] = l.P50Ms, l.P99Ms
	}
	al.CommonKeyAddresses = in.CommonKeyAddresses
	byKind := map[string][]time.Duration{}
	var mu sync.Mutex
	run := func(conns int, dur time.Duration) Latency {
		var all []time.Duration
		var wg sync.WaitGroup
		deadline := time.Now().Add(dur)
		for w := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var lat []time.Duration
				kinds := map[string][]time.Duration{}
				bad := 0
				for i := w; time.Now().Before(deadline) && ctx.Err() == nil; i += conns {
					q := qs[i%len(qs)]
					d, _, err := get(q)
					if err != nil {
						bad++
						continue
					}
					lat = append(lat, d)
					kinds[q.Kind] = append(kinds[q.Kind], d)
				}
				mu.Lock()
				defer mu.Unlock()
				all, al.Non200 = append(all, lat...), al.Non200+bad
				if conns == 1 {
					for k, v := range kinds {
						byKind[k] = append(byKind[k], v...)
					}
				}
			}()
		}
		wg.Wait()
		l := latency(all, dur)
		l.Conns = conns
		return l
	}
	dur := time.Duration(sv.DurationS * float64(time.Second))
	al.Serial = run(1, dur)
	for k, v := range byKind {
		al.P50ByKind[k] = latency(v, dur).P50Ms
	}
	al.Concurrent = run(sv.Conns, dur)
	sv.Addresses = al
	if al.Serial.Requests == 0 || al.Concurrent.Requests == 0 {
		return fmt.Errorf("scalerun: the address lookups got no answer")
	}
	return nil
}

// latency sorts ds and summarises them.
func latency(ds []time.Duration, dur time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	pct := func(p float64) float64 { return ms(ds[min(len(ds)-1, int(p*float64(len(ds))))]) }
	return Latency{Requests: len(ds), ReqPerS: float64(len(ds)) / dur.Seconds(), P50Ms: pct(0.5), P99Ms: pct(0.99), MaxMs: ms(ds[len(ds)-1])}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// metres is the distance between a lon/lat point and lon, lat (an
// equirectangular approximation: exact enough for metres).
func metres(p [2]float64, lon, lat float64) float64 {
	const r = 6371000.0
	dx := (p[0] - lon) * math.Pi / 180 * r * math.Cos(lat*math.Pi/180)
	dy := (p[1] - lat) * math.Pi / 180 * r
	return math.Hypot(dx, dy)
}
