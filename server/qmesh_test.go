package server

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/qmesh"
)

// qmeshTileURL is the z=15 tile over the raster fixture's DGM.
func qmeshTileURL() string {
	lon, lat := geo.FromUTM(geo.Zone32, 477020.3, 5551070.8)
	size := 180 / math.Ldexp(1, 15)
	return fmt.Sprintf("/v1/terrain/quantized-mesh/15/%d/%d.terrain", int((lon+180)/size), int((lat+90)/size))
}

func TestQuantizedMeshRoutes(t *testing.T) {
	f := rasterFix(t)
	tile := qmeshTileURL()
	do := func(path string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, r)
		return w
	}
	gz := do(tile, map[string]string{"Accept-Encoding": "gzip", "Accept": "application/vnd.quantized-mesh;extensions=octvertexnormals"})
	plain := do(tile+"?extensions=octvertexnormals", nil)
	if gz.Code != 200 || gz.Header().Get("Content-Encoding") != "gzip" || plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("gzip %d %v, plain %d %v", gz.Code, gz.Header(), plain.Code, plain.Header())
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if string(unz) != plain.Body.String() || gz.Header().Get("ETag") != plain.Header().Get("ETag") {
		t.Error("gzip and identity bodies or ETags differ")
	}
	if w := do(tile, map[string]string{"If-None-Match": gz.Header().Get("ETag"), "Accept": "application/vnd.quantized-mesh;extensions=octvertexnormals"}); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	if noNormals := do(tile, nil); noNormals.Header().Get("ETag") == gz.Header().Get("ETag") || noNormals.Body.Len() >= plain.Body.Len() {
		t.Error("a tile without normals has the same ETag or is not smaller")
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/v1/terrain/quantized-mesh/layer.json", 200},
		{"/v1/terrain/quantized-mesh/0/0/0.terrain", 200},
		{"/v1/terrain/quantized-mesh/0/2/0.terrain", 404},
		{"/v1/terrain/quantized-mesh/19/0/0.terrain", 404},
		{"/v1/terrain/quantized-mesh/1/x/0.terrain", 400},
		{"/v1/terrain/quantized-mesh/1/0/0.png", 400},
		{"/v1/terrain/quantized-mesh/1/0/-1.terrain", 400},
		{"/v1/terrain/quantized-mesh/1/0/0.terrain?extensions=watermask", 400},
	} {
		w := do(tc.path, nil)
		if w.Code != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, w.Code, tc.status)
		}
		if w.Code >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
			t.Errorf("%s: %s", tc.path, w.Header().Get("Content-Type"))
		}
	}
}

// BenchmarkQuantizedMeshTile serves a z=15 tile over the fixture's DGM
// through the whole middleware: cold (an empty cache each time: sampling,
// RTIN, encoding, gzip) and warm (from the cache, both cores).
func BenchmarkQuantizedMeshTile(b *testing.B) {
	f := rasterFix(b)
	tile := qmeshTileURL()
	req := func() *http.Request {
		r := httptest.NewRequest("GET", tile, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		r.Header.Set("Accept", "application/vnd.quantized-mesh;extensions=octvertexnormals")
		return r
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			f.srv.qmesh = qmesh.New(nil, 0)
			w := httptest.NewRecorder()
			f.srv.ServeHTTP(w, req())
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := req()
			for pb.Next() {
				w := httptest.NewRecorder()
				f.srv.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tiles/s")
	})
}
