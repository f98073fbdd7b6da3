package viewer

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	h := Handler("/viewer/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nf", http.StatusTeapot) // the caller's own not-found
	}))
	for _, tc := range []struct {
		name, path, enc string
		status          int
		ctype, cenc     string
		contains        string
	}{
		{"page", "/viewer/", "", 200, "text/html; charset=utf-8", "", "svc viewer"},
		{"script", "/viewer/viewer.js", "", 200, "text/javascript; charset=utf-8", "", "svcViewer"},
		{"library gzip", "/viewer/vendor/maplibre/maplibre-gl.js", "gzip, deflate", 200, "text/javascript; charset=utf-8", "gzip", ""},
		{"library identity", "/viewer/vendor/maplibre/maplibre-gl.css", "", 200, "text/css; charset=utf-8", "", ".maplibregl"},
		{"gzip refused", "/viewer/vendor/maplibre/maplibre-gl.css", "gzip;q=0", 200, "text/css; charset=utf-8", "", ".maplibregl"},
		{"wasm", "/viewer/vendor/cesium/ThirdParty/draco_decoder.wasm", "gzip", 200, "application/wasm", "gzip", ""},
		{"missing", "/viewer/nope.js", "", 418, "", "", ""},
		{"dot file", "/viewer/.env", "", 418, "", "", ""},
		{"raw gz name", "/viewer/vendor/maplibre/maplibre-gl.js.gz", "", 418, "", "", ""},
		{"manifest not served", "/viewer/vendor/MANIFEST", "", 418, "", "", ""},
		{"encoded dots", "/viewer/vendor/../assets/index.html", "", 418, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.URL.Path = tc.path
			if tc.enc != "" {
				r.Header.Set("Accept-Encoding", tc.enc)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if tc.status != 200 {
				return
			}
			if got := w.Header().Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type %q, want %q", got, tc.ctype)
			}
			if got := w.Header().Get("Content-Encoding"); got != tc.cenc {
				t.Errorf("Content-Encoding %q, want %q", got, tc.cenc)
			}
			body := w.Body.Bytes()
			if tc.cenc == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil || len(body) == 0 {
					t.Fatalf("gunzip: %v", err)
				}
			}
			if !strings.Contains(string(body), tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
			// Revalidation by ETag.
			r2 := httptest.NewRequest("GET", "/", nil)
			r2.URL.Path, r2.Header = tc.path, r.Header.Clone()
			r2.Header.Set("If-None-Match", w.Header().Get("ETag"))
			w2 := httptest.NewRecorder()
			h.ServeHTTP(w2, r2)
			if w2.Code != http.StatusNotModified {
				t.Errorf("If-None-Match: %d", w2.Code)
			}
		})
	}
}

// TestPageNamesNoOtherOrigin: the page and its script load nothing from
// another origin (no CDN, no font service): the viewer must work offline.
func TestPageNamesNoOtherOrigin(t *testing.T) {
	for _, name := range []string{"assets/index.html", "assets/viewer.js", "assets/map3d.js", "assets/solar.js", "assets/viewer.css"} {
		b, err := files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "//unpkg", "//fonts."} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}
