package mvt

import (
	"bytes"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Gzip compresses an encoded tile as the tile route sends it with
// Content-Encoding: gzip and as an offline archive stores it (PMTiles tile
// compression gzip): klauspost gzip at BestSpeed, no name and no time in
// the header, so the same tile gives the same bytes. Empty input gives nil
// (a tile without layers is sent and stored as nothing).
func Gzip(tile []byte) ([]byte, error) {
	if len(tile) == 0 {
		return nil, nil
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	// MTIME 0 is "no time stamp" (RFC 1952 2.3.1); klauspost writes the
	// zero time.Time as a date in 2042 otherwise.
	zw.ModTime = time.Unix(0, 0)
	if _, err := zw.Write(tile); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}
