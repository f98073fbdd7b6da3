package server

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// searchGoldenPaths are the answers of the search path whose bytes must
// not change when its encoding is optimised (issue 24 point 5): pages of
// GET /v1/buildings (one BL, a cursor, a page across two BL, an empty
// one), the OGC API pages built from the same hits (CRS84, a projected
// CRS, the roofs collection) and the building and roof details.
var searchGoldenPaths = []string{
	"/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=100",
	"/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=1000",
	"/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=7",
	"/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=50&cursor=aGU6MTk1",
	"/v1/buildings?bbox=5,47,15,55&limit=1000&cursor=YmI6MjAwMQ", // after bb:2001: 686 surfaces of bb, then be
	"/v1/buildings?bbox=5.0,47.0,5.01,47.01",
	"/ogc/collections/surfaces/items?bbox=8.6700,50.1040,8.6840,50.1130&limit=100",
	"/ogc/collections/surfaces/items?bbox=8.6700,50.1040,8.6840,50.1130&limit=20&crs=http://www.opengis.net/def/crs/EPSG/0/25832",
	"/ogc/collections/roofs/items?bbox=8.6700,50.1040,8.6840,50.1130&limit=20",
	"/v1/buildings/DEHEDM00000001",
	"/v1/buildings/DEHEDM00000001/roof",
}

// ogcTimeStamp is the one part of an answer that changes from call to call.
var ogcTimeStamp = regexp.MustCompile(`"timeStamp":"[^"]*"`)

// TestSearchResponsesGolden compares the status, content type and body of
// each searchGoldenPaths answer over the demo pack with
// testdata/search.golden.gz, written by the code before the allocation
// work of issue 24. Run `go test ./server -run SearchResponsesGolden
// -update` only after an intended change of the answers.
func TestSearchResponsesGolden(t *testing.T) {
	f := demoFixture(t)
	var got bytes.Buffer
	for _, p := range searchGoldenPaths {
		resp, body := f.do(t, "GET", p, nil)
		body = ogcTimeStamp.ReplaceAll(body, []byte(`"timeStamp":"-"`))
		fmt.Fprintf(&got, "=== GET %s\n%d %s %d\n", p, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		got.Write(body)
	}
	path := filepath.Join("testdata", "search.golden.gz")
	if *update {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(got.Bytes())
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readGzip(t, path)
	if bytes.Equal(got.Bytes(), want) {
		return
	}
	g, w := got.Bytes(), want
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	lo := max(0, i-120)
	t.Fatalf("answers differ from %s at byte %d (got %d bytes, want %d):\n got: …%s\nwant: …%s\n(run with -update after an intended change)",
		path, i, len(g), len(w), g[lo:min(len(g), i+80)], w[lo:min(len(w), i+80)])
}

func readGzip(t *testing.T, path string) []byte {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSearchPooledConcurrent runs different searches at once: the pooled
// hit slices, scratch and buffers of one request must never show up in
// another's answer.
func TestSearchPooledConcurrent(t *testing.T) {
	f := demoFixture(t)
	paths := searchGoldenPaths[:6]
	want := make([][]byte, len(paths))
	for i, p := range paths {
		_, want[i] = f.do(t, "GET", p, nil)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for n := range 12 {
				i := (g + n) % len(paths)
				resp, err := http.Get(f.ts.URL + paths[i])
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil && !bytes.Equal(body, want[i]) {
					err = fmt.Errorf("%s: answer differs under concurrency (%d bytes, want %d)", paths[i], len(body), len(want[i]))
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
