package server

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/ogcapi"
	"github.com/svc-geodata/svc/tilecache"
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
// byte for byte as its /v1 route encodes it. The parts answer from their
// own caches; the concatenation and its gzip encoding are kept in cache
// under the parts' ETags, which name their content, so the tile's ETag
// changes when any part's does. gzip, 304 and the headers are those of
// every /v1 vector tile (httpapi.WriteMVT). A part's error is the tile's
// error.
func composeMVT(cache *tilecache.Cache, parts ...mvtPart) ogcapi.TileServe {
	return func(w http.ResponseWriter, r *http.Request, z, x, y int) error {
		// The parts answer a plain, unconditional request.
		sub := r.Clone(r.Context())
		for _, h := range []string{"Accept-Encoding", "If-None-Match", "If-Modified-Since"} {
			sub.Header.Del(h)
		}
		key := fmt.Sprintf("ogcmvt|%d/%d/%d", z, x, y)
		var bodies [][]byte
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
			bodies = append(bodies, rec.body)
			key += fmt.Sprintf("|%d %s", i, rec.header.Get("ETag"))
		}
		e, err := cache.Get(r.Context(), key, func(context.Context) (tilecache.Entry, error) {
			body := bytes.Join(bodies, nil)
			gz, err := mvt.Gzip(body)
			if err != nil {
				return tilecache.Entry{}, fmt.Errorf("server: vector tile %d/%d/%d: %w", z, x, y, err)
			}
			return tilecache.Entry{Data: body, Meta: gz}, nil
		})
		if err != nil {
			return err
		}
		gz, _ := e.Meta.([]byte)
		return httpapi.WriteMVT(w, r, func() ([]byte, error) { return e.Data, nil }, gz, e.ETag)
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
