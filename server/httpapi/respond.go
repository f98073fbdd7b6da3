package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// WriteJSON encodes v with the given Cache-Control (empty: none).
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, cacheControl string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if cacheControl != "" {
		h.Set("Cache-Control", cacheControl)
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(append(body, '\n'))
	}
	return nil
}

// buffers recycles response buffers of the search: a page is about 100 KB,
// and allocating it afresh per request makes the garbage collector the
// largest cost of the route.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// GetBuffer takes a response buffer from the pool.
func GetBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

// PutBuffer returns b to the pool.
func PutBuffer(b *bytes.Buffer) {
	if b.Cap() <= 4<<20 { // do not keep the rare huge page alive
		b.Reset()
		buffers.Put(b)
	}
}
