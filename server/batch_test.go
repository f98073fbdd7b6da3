package server

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
)

// latLon is [lat, lon] of a UTM32N point.
func latLon(e, n float64) [2]float64 {
	lon, lat := geo.FromUTM(geo.Zone32, e, n)
	return [2]float64{lat, lon}
}

func (f *rasterFixture) post(t testing.TB, path, ctype, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(f.ts.URL+path, ctype, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

type batchResult struct {
	Interpolation string
	Count, Valid  int
	Results       []struct {
		Lat, Lon  float64
		Elevation *float64 `json:"elevation_m"`
		SourceBL  string   `json:"source_bl"`
		TileID    *string  `json:"tile_id"`
		Reason    *string
	}
	Svc struct{ Attribution []map[string]any }
}

// TestElevationBatch sends points of every kind (valid, NoData, a damaged
// tile, an unreachable pass-through source, outside coverage) in both body
// shapes and checks order, values and reasons.
func TestElevationBatch(t *testing.T) {
	t.Parallel()
	f := rasterFix(t)
	ok1, ok2 := latLon(477010.3, 5551020.7), latLon(477090.6, 5551080.2)
	pts := [][2]float64{ok1, latLon(477050.5, 5551050.5), latLon(477150.5, 5551050.5),
		latLon(650050.5, 5400050.5), {52.5, 13.4}, ok2}
	reasons := []string{"", "nodata", "damaged", "unavailable", "outside", ""}
	locs, _ := json.Marshal(map[string]any{"locations": pts})
	var coords [][]float64
	for _, p := range pts {
		coords = append(coords, []float64{p[1], p[0], 99})
	}
	mp, _ := json.Marshal(map[string]any{"type": "MultiPoint", "coordinates": coords})
	for _, tc := range []struct{ name, query, ctype, body string }{
		{"locations", "", "application/json", string(locs)},
		{"geojson", "", "application/geo+json", string(mp)},
		{"bilinear", "?interpolation=bilinear", "application/json", string(locs)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.post(t, "/v1/terrain/elevation"+tc.query, tc.ctype, tc.body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			var got batchResult
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Count != len(pts) || got.Valid != 2 || len(got.Results) != len(pts) {
				t.Fatalf("count %d valid %d results %d", got.Count, got.Valid, len(got.Results))
			}
			for i, r := range got.Results {
				if r.Lat != pts[i][0] || r.Lon != pts[i][1] {
					t.Errorf("result %d is at %v,%v, sent %v", i, r.Lat, r.Lon, pts[i])
				}
				if reasons[i] == "" {
					if r.Elevation == nil || r.Reason != nil || r.TileID == nil || r.SourceBL != "he" {
						t.Fatalf("result %d: %+v", i, r)
					}
					continue
				}
				if r.Elevation != nil || r.Reason == nil || *r.Reason != reasons[i] {
					t.Errorf("result %d: elevation %v reason %v, want null and %s", i, r.Elevation, r.Reason, reasons[i])
				}
			}
			// Nearest is the pixel centre's value; bilinear on the fixture's
			// plane is the value at the point itself.
			want := map[bool][2]float64{
				false: {rasterValue(477010.5, 5551020.5), rasterValue(477090.5, 5551080.5)},
				true:  {rasterValue(477010.3, 5551020.7), rasterValue(477090.6, 5551080.2)},
			}[tc.name == "bilinear"]
			for k, i := range []int{0, 5} {
				if e := *got.Results[i].Elevation; math.Abs(e-want[k]) > 0.0015 {
					t.Errorf("%s result %d: %v, want %v", tc.name, i, e, want[k])
				}
			}
			if len(got.Svc.Attribution) != 1 {
				t.Errorf("attribution %v", got.Svc.Attribution)
			}
			// The single-point GET agrees with the batch.
			code, one := f.get(t, "/v1/terrain/elevation?"+ll(477010.3, 5551020.7)+strings.Replace(tc.query, "?", "&", 1))
			if code != 200 || one["elevation_m"].(float64) != *got.Results[0].Elevation && tc.name != "geojson" {
				t.Errorf("GET: %d %v, batch %v", code, one["elevation_m"], *got.Results[0].Elevation)
			}
		})
	}
}

// TestElevationBatchBadInput: every malformed batch gets its problem.
func TestElevationBatchBadInput(t *testing.T) {
	t.Parallel()
	f := rasterFix(t)
	many := strings.Repeat("[50.1,8.6],", 10000) + "[50.1,8.6]"
	huge := `{"locations":[` + strings.Repeat("[50.100000000000000001,8.600000000000000001],", 30000) + `[50.1,8.6]]}`
	for _, tc := range []struct {
		name, ctype, query, body string
		status                   int
		slug, mention            string
	}{
		{"malformed JSON", "application/json", "", `{"locations": [[50.1, 8.6]`, 400, "bad-request", "JSON"},
		{"NaN", "application/json", "", `{"locations": [[NaN, 8.6]]}`, 400, "bad-request", "JSON"},
		{"not an object", "application/json", "", `[[50.1, 8.6]]`, 400, "bad-request", "object"},
		{"pair of strings", "application/json", "", `{"locations": [["50.1", "8.6"]]}`, 400, "bad-request", "locations"},
		{"three numbers", "application/json", "", `{"locations": [[50.1, 8.6, 3]]}`, 400, "bad-request", "[lat, lon]"},
		{"unknown member", "application/json", "", `{"locations": [[50.1, 8.6]], "srs": "EPSG:25832"}`, 400, "bad-request", "srs"},
		{"both shapes", "application/json", "", `{"locations": [[50.1, 8.6]], "type": "MultiPoint", "coordinates": [[8.6, 50.1]]}`, 400, "bad-request", "both"},
		{"no point", "application/json", "", `{"locations": []}`, 422, "validation-error", "no point"},
		{"latitude out of range", "application/json", "", `{"locations": [[95, 8.6]]}`, 422, "validation-error", "latitude"},
		{"swapped GeoJSON out of range", "application/json", "", `{"type": "MultiPoint", "coordinates": [[8.6, 50.1], [200, 50]]}`, 422, "validation-error", "Point 1"},
		{"other CRS", "application/geo+json", "", `{"type": "MultiPoint", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::25832"}}, "coordinates": [[477000, 5551000]]}`, 422, "validation-error", "25832"},
		{"polygon", "application/json", "", `{"type": "Polygon", "coordinates": [[[8.6, 50.1], [8.7, 50.1], [8.6, 50.2], [8.6, 50.1]]]}`, 422, "validation-error", "MultiPoint"},
		{"too many points", "application/json", "", `{"locations": [` + many + `]}`, 413, "payload-too-large", "10000"},
		{"body over 1 MiB", "application/json", "", huge, 413, "payload-too-large", "bytes"},
		{"not JSON", "text/plain", "", `{"locations": [[50.1, 8.6]]}`, 415, "unsupported-media", "application/json"},
		{"unknown interpolation", "application/json", "?interpolation=spline", `{"locations": [[50.1, 8.6]]}`, 422, "validation-error", "interpolation"},
		{"empty body", "application/json", "", ``, 400, "bad-request", "JSON"},
		{"trailing garbage", "application/json", "", `{"locations": [[50.1, 8.6]]} x`, 400, "bad-request", "JSON"},
		{"second object", "application/json", "", `{"locations": [[50.1, 8.6]]}{"locations": [[50.1, 8.6]]}`, 400, "bad-request", "JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.post(t, "/v1/terrain/elevation"+tc.query, tc.ctype, tc.body)
			p := checkProblem(t, resp, body, tc.status, tc.slug)
			if d, _ := p["detail"].(string); !strings.Contains(d, tc.mention) {
				t.Errorf("detail %q does not mention %q", d, tc.mention)
			}
		})
	}
}

// TestOpenTopoData checks the compatibility layer's shape, both methods,
// nodata_value and its errors (problems with opentopodata's error member).
func TestOpenTopoData(t *testing.T) {
	t.Parallel()
	f := rasterFix(t)
	a, lake := latLon(477010.3, 5551020.7), latLon(477050.5, 5551050.5)
	locs := fmt.Sprintf("%.9f,%.9f|%.9f,%.9f", a[0], a[1], lake[0], lake[1])
	type otd struct {
		Results []struct {
			Dataset   string
			Elevation *float64
			Location  struct{ Lat, Lng float64 }
		}
		Status string
	}
	check := func(t *testing.T, resp *http.Response, body []byte, nodata *float64) {
		t.Helper()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var got otd
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if got.Status != "OK" || len(got.Results) != 2 || got.Results[0].Dataset != "dgm1" {
			t.Fatalf("%s", body)
		}
		if e := got.Results[0].Elevation; e == nil || math.Abs(*e-rasterValue(477010.5, 5551020.5)) > 0.0015 {
			t.Errorf("elevation %v", e)
		}
		if r := got.Results[0].Location; math.Abs(r.Lat-a[0]) > 1e-9 || math.Abs(r.Lng-a[1]) > 1e-9 {
			t.Errorf("location %+v, sent %v", r, a)
		}
		if e := got.Results[1].Elevation; (e == nil) != (nodata == nil) || e != nil && *e != *nodata {
			t.Errorf("NoData elevation %v, want %v", e, nodata)
		}
	}
	t.Run("GET", func(t *testing.T) {
		resp, err := http.Get(f.ts.URL + "/opentopodata/v1/dgm1?locations=" + url.QueryEscape(locs))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		check(t, resp, body, nil)
	})
	t.Run("GET nodata_value", func(t *testing.T) {
		resp, err := http.Get(f.ts.URL + "/opentopodata/v1/dgm1?nodata_value=-9999&locations=" + url.QueryEscape(locs))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		nd := -9999.0
		check(t, resp, body, &nd)
	})
	t.Run("POST JSON", func(t *testing.T) {
		resp, body := f.post(t, "/opentopodata/v1/dgm1", "application/json", `{"locations": "`+locs+`", "interpolation": "nearest"}`)
		check(t, resp, body, nil)
	})
	t.Run("POST form", func(t *testing.T) {
		resp, body := f.post(t, "/opentopodata/v1/dgm1", "application/x-www-form-urlencoded", "locations="+url.QueryEscape(locs))
		check(t, resp, body, nil)
	})
	for _, tc := range []struct {
		name, path string
		status     int
		slug       string
	}{
		{"unknown dataset", "/opentopodata/v1/srtm90m?locations=50,8", 404, "not-found"},
		{"polyline", "/opentopodata/v1/dgm1?locations=gfo%7DEtohhU", 400, "bad-request"},
		{"out of range", "/opentopodata/v1/dgm1?locations=91,8", 422, "validation-error"},
		{"missing locations", "/opentopodata/v1/dgm1", 400, "bad-request"},
		{"bad nodata_value", "/opentopodata/v1/dgm1?locations=50,8&nodata_value=nan", 400, "bad-request"},
		{"unknown parameter", "/opentopodata/v1/dgm1?locations=50,8&format=geojson", 400, "bad-request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(f.ts.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			p := checkProblem(t, resp, body, tc.status, tc.slug)
			if p["error"] != p["detail"] {
				t.Errorf("error member %v, detail %v", p["error"], p["detail"])
			}
		})
	}
}

// TestBatchCountsPerHundredPoints: 250 points cost 3 keyless calls.
func TestBatchCountsPerHundredPoints(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{limit: 5})
	xff := map[string]string{"X-Forwarded-For": "198.51.100.9", "Content-Type": "application/json"}
	body := func(n int) string {
		return `{"locations": [` + strings.TrimSuffix(strings.Repeat("[50.1,8.6],", n), ",") + `]}`
	}
	resp, b := f.send(t, "POST", "/v1/terrain/elevation", body(250), xff)
	if resp.StatusCode != 200 || resp.Header.Get("X-Keyless-Remaining") != "2" {
		t.Fatalf("250 points: %d, remaining %q: %s", resp.StatusCode, resp.Header.Get("X-Keyless-Remaining"), b)
	}
	resp, b = f.send(t, "POST", "/v1/terrain/elevation", body(300), xff)
	p := checkProblem(t, resp, b, 429, "keyless-daily-limit")
	if d, _ := p["detail"].(string); !strings.Contains(d, "costs 3 calls") {
		t.Errorf("detail %q", d)
	}
}
