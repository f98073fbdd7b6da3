package server

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// xyz is the Web Mercator tile of lon, lat at zoom z.
func xyz(lon, lat float64, z int) (int, int) {
	n := float64(int(1) << z)
	lr := lat * math.Pi / 180
	return int((lon + 180) / 360 * n), int((1 - math.Log(math.Tan(lr)+1/math.Cos(lr))/math.Pi) / 2 * n)
}

func demoHandler(t testing.TB) *Server {
	t.Helper()
	ts, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	return ts.Config.Handler.(*Server)
}

func TestHillshadeRoutes(t *testing.T) {
	s := demoHandler(t)
	do := func(path string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	x, y := xyz(8.6685, 50.1153, 16)
	tile := fmt.Sprintf("/v1/terrain/hillshade/16/%d/%d", x, y)
	w := do(tile+".png", nil)
	img, err := png.Decode(w.Body)
	if w.Code != 200 || err != nil || img.Bounds().Dx() != 256 {
		t.Fatalf("%d %v", w.Code, err)
	}
	if w2 := do(tile+"@2x.png?style=hypsometric", nil); w2.Code != 200 || w2.Header().Get("ETag") == w.Header().Get("ETag") {
		t.Fatalf("@2x hypsometric: %d", w2.Code)
	} else if im, err := png.Decode(bytes.NewReader(w2.Body.Bytes())); err != nil || im.Bounds().Dx() != 512 {
		t.Fatalf("@2x: %v", err)
	}
	if w3 := do(tile+".png", map[string]string{"If-None-Match": w.Header().Get("ETag")}); w3.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w3.Code)
	}
	// Far from the data: a transparent tile, not an error.
	if w4 := do("/v1/terrain/hillshade/10/0/0.png", nil); w4.Code != 200 {
		t.Errorf("empty tile: %d", w4.Code)
	} else if im, _ := png.Decode(w4.Body); im == nil {
		t.Error("empty tile is no PNG")
	} else if _, _, _, a := im.At(5, 5).RGBA(); a != 0 {
		t.Error("empty tile not transparent")
	}
	tj := do("/v1/terrain/hillshade.json?style=hypsometric", nil)
	if tj.Code != 200 || !strings.Contains(tj.Body.String(), `/v1/terrain/hillshade/{z}/{x}/{y}.png?style=hypsometric"`) {
		t.Errorf("TileJSON: %d %s", tj.Code, tj.Body)
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/v1/terrain/hillshade/7/0/0.png", 404},
		{"/v1/terrain/hillshade/21/0/0.png", 404},
		{"/v1/terrain/hillshade/10/1024/0.png", 404},
		{"/v1/terrain/hillshade/10/0/0.jpg", 400},
		{"/v1/terrain/hillshade/10/0/0@3x.png", 400},
		{"/v1/terrain/hillshade/10/-1/0.png", 400},
		{"/v1/terrain/hillshade/10/0/0.png?style=relief", 422},
		{"/v1/terrain/hillshade.json?style=x", 422},
	} {
		if w := do(tc.path, nil); w.Code != tc.status || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
			t.Errorf("%s: %d %s, want %d problem", tc.path, w.Code, w.Header().Get("Content-Type"), tc.status)
		}
	}
}

// BenchmarkHillshadeTile renders a z=15 tile over the demo DGM: cold (an
// empty cache each time: sampling 258² points, shading, PNG) and warm
// (from the cache, both cores). Issue 15: cold under 30 ms, warm over
// 5,000 tiles/s.
func BenchmarkHillshadeTile(b *testing.B) {
	s := demoHandler(b)
	x, y := xyz(8.6685, 50.1153, 15)
	path := fmt.Sprintf("/v1/terrain/hillshade/15/%d/%d.png", x, y)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			s.hillshade.Reset() // the routes hold this cache: a new one would go unseen
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/tile")
	})
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := httptest.NewRequest("GET", path, nil)
			for pb.Next() {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tiles/s")
	})
}
