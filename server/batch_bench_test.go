package server

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
)

// BenchmarkElevationBatchHTTP is one 10,000-point POST over loopback, body
// parsing and response writing included (issue 12: under 30 ms).
func BenchmarkElevationBatchHTTP(b *testing.B) {
	f := rasterFix(b)
	rng := rand.New(rand.NewPCG(5, 6))
	pts := make([][2]float64, 10000)
	for i := range pts {
		pts[i] = latLon(477001+rng.Float64()*98, 5551001+rng.Float64()*98)
	}
	body, _ := json.Marshal(map[string]any{"locations": pts})
	for _, q := range []string{"", "?interpolation=cubic"} {
		name := "nearest"
		if q != "" {
			name = "cubic"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				resp, err := http.Post(f.ts.URL+"/v1/terrain/elevation"+q, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || n < 10000*50 {
					b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/request")
		})
	}
}
