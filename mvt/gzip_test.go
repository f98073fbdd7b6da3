package mvt

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// TestGzip: the same tile gives the same bytes (archives and ETags rely
// on it), stdlib gzip reads them back, and an empty tile is nothing.
func TestGzip(t *testing.T) {
	tile := bytes.Repeat([]byte("layer buildings "), 500)
	a, err := Gzip(tile)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Gzip(tile)
	if !bytes.Equal(a, b) || len(a) >= len(tile) {
		t.Fatalf("%d and %d bytes, equal %v, from %d", len(a), len(b), bytes.Equal(a, b), len(tile))
	}
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if back, err := io.ReadAll(zr); err != nil || !bytes.Equal(back, tile) {
		t.Fatalf("read back %d bytes, %v", len(back), err)
	}
	if zr.Header.Name != "" || !zr.Header.ModTime.IsZero() {
		t.Fatalf("header name %q, time %v: want none", zr.Header.Name, zr.Header.ModTime)
	}
	if e, err := Gzip(nil); e != nil || err != nil {
		t.Fatalf("empty tile: %v %v", e, err)
	}
}
