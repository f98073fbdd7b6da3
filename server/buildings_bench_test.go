package server

import (
	"bytes"
	"net/http/httptest"
	"testing"
)

// BenchmarkSearchHandler runs a 1 km2 search with limit 100 through the
// whole handler chain in process (routing, access off, search, GeoJSON).
func BenchmarkSearchHandler(b *testing.B) {
	ts, err := demoServer()
	if err != nil {
		b.Fatal(err)
	}
	h := ts.Config.Handler
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=100", nil))
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"count":100`)) {
			b.Fatalf("%d, %d bytes", rec.Code, rec.Body.Len())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "searches/s")
}

// BenchmarkOGCItems is the same 1 km² page through the OGC API items route
// (issue 12: within 20 % of BenchmarkSearchHandler), in CRS84 and EPSG:25832.
func BenchmarkOGCItems(b *testing.B) {
	ts, err := demoServer()
	if err != nil {
		b.Fatal(err)
	}
	h := ts.Config.Handler
	for _, crs := range []string{"", "&crs=EPSG:25832"} {
		name := "crs84"
		if crs != "" {
			name = "epsg25832"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/ogc/collections/surfaces/items?bbox=8.6700,50.1040,8.6840,50.1130&limit=100"+crs, nil))
				if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"numberReturned":100`)) {
					b.Fatalf("%d, %s", rec.Code, rec.Body.Bytes()[:min(300, rec.Body.Len())])
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "searches/s")
		})
	}
}

// BenchmarkOGCFilter is a page of the OGC items route with the Part 3 and
// sorting parameters: an attribute filter and sortby within the 1 km² box,
// and a spatial filter alone (its envelope narrows the index search).
func BenchmarkOGCFilter(b *testing.B) {
	ts, err := demoServer()
	if err != nil {
		b.Fatal(err)
	}
	h := ts.Config.Handler
	const box = "bbox=8.6700,50.1040,8.6840,50.1130&limit=100"
	for _, tc := range []struct{ name, query string }{
		{"none", box},
		{"attribute", box + "&filter=surface_class%20%3D%20712"},
		{"spatial", "limit=100&filter=S_INTERSECTS(geometry,BBOX(8.6700,50.1040,8.6840,50.1130))"},
		{"sortby", box + "&sortby=-building_id"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/ogc/collections/surfaces/items?"+tc.query, nil))
				if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"numberReturned":100`)) {
					b.Fatalf("%d, %s", rec.Code, rec.Body.Bytes()[:min(300, rec.Body.Len())])
				}
			}
		})
	}
}
