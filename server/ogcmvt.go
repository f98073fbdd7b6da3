package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/ogcapi"
)

// mvtPart is one /v1 vector tile route inside a tileset of several, with
// the zooms it has.
type mvtPart struct {
	minZoom, maxZoom int
	serve            ogcapi.TileServe
}

// composeMVT serves the tile z/x/y of a tileset made of parts: the plain
// (not gzip-encoded) tiles of the parts that have zoom z, concatenated. An
// MVT is a protobuf message whose layers are a repeated field (MVT 2.1,
// 4.1), so the concatenation is one tile holding every part's layers, each
// byte for byte as its /v1 route encodes it. The ETag is derived from the
// parts' ETags (it changes when any part's does); gzip, 304 and the
// headers are those of every /v1 vector tile (httpapi.WriteMVT). A part's
// error is the tile's error.
func composeMVT(parts ...mvtPart) ogcapi.TileServe {
	return func(w http.ResponseWriter, r *http.Request, z, x, y int) error {
		var body []byte
		sum := sha256.New()
		// The parts answer a plain, unconditional request.
		sub := r.Clone(r.Context())
		for _, h := range []string{"Accept-Encoding", "If-None-Match", "If-Modified-Since"} {
			sub.Header.Del(h)
		}
		for i, p := range parts {
			if z < p.minZoom || z > p.maxZoom {
				continue
			}
			rec := &tileRecorder{header: http.Header{}}
			if err := p.serve(rec, sub, z, x, y); err != nil {
				return err
			}
			if rec.status != http.StatusOK {
				return fmt.Errorf("server: part %d of vector tile %d/%d/%d answered %d", i, z, x, y, rec.status)
			}
			body = append(body, rec.body...)
			fmt.Fprintf(sum, "%d %s\n", i, rec.header.Get("ETag"))
		}
		etag := `"` + hex.EncodeToString(sum.Sum(nil)[:12]) + `"`
		var gz []byte
		if httpapi.AcceptsGzip(r) {
			var err error
			if gz, err = mvt.Gzip(body); err != nil {
				return fmt.Errorf("server: vector tile %d/%d/%d: %w", z, x, y, err)
			}
		}
		return httpapi.WriteMVT(w, r, func() ([]byte, error) { return body, nil }, gz, etag)
	}
}

// tileRecorder holds what a part's handler answers.
type tileRecorder struct {
	header http.Header
	status int
	body   []byte
}

func (t *tileRecorder) Header() http.Header { return t.header }

func (t *tileRecorder) WriteHeader(status int) {
	if t.status == 0 {
		t.status = status
	}
}

func (t *tileRecorder) Write(b []byte) (int, error) {
	t.WriteHeader(http.StatusOK)
	t.body = append(t.body, b...)
	return len(b), nil
}
