package raster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// cogBytes returns a WriteCOG file of a generated grid.
func cogBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCOG(&b, genGrid(w, h, 9), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rangeServer serves data with http.ServeContent (which honours Range) and
// counts requests.
func rangeServer(t *testing.T, data []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "x.tif", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestHTTPSource opens and samples a COG over HTTP range requests and
// compares with the same file read from memory.
func TestHTTPSource(t *testing.T) {
	t.Parallel()
	data := cogBytes(t, 1100, 900)
	srv, reqs := rangeServer(t, data)
	ctx := context.Background()
	src := NewHTTPSource(srv.Client(), srv.URL)
	if src.Size() != -1 {
		t.Errorf("size before first read = %d, want -1", src.Size())
	}
	remote, err := Open(ctx, src, NewCache(0))
	if err != nil {
		t.Fatal(err)
	}
	if got := reqs.Load(); got > 2 {
		t.Errorf("Open took %d requests, want at most 2", got)
	}
	if src.Size() != int64(len(data)) {
		t.Errorf("size = %d, want %d", src.Size(), len(data))
	}
	local, err := Open(ctx, BytesSource(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	minX, minY, maxX, maxY := local.Info().Bounds()
	for _, p := range randomPoints(4, 500, minX, minY, maxX, maxY) {
		v1, ok1, err1 := remote.Sample(ctx, p[0], p[1])
		v2, ok2, err2 := local.Sample(ctx, p[0], p[1])
		if err1 != nil || err2 != nil || v1 != v2 || ok1 != ok2 {
			t.Fatalf("at %v: remote %v %v %v, local %v %v %v", p, v1, ok1, err1, v2, ok2, err2)
		}
	}
	before := reqs.Load()
	for range 100 {
		_, _, _ = remote.Sample(ctx, 480700.5, 5599300.5)
	}
	if reqs.Load() != before {
		t.Errorf("warm samples made %d requests", reqs.Load()-before)
	}
}

// TestHTTPSourceUnavailable checks that failing servers give ErrUnavailable
// and a cancelled context gives context.Canceled.
func TestHTTPSourceUnavailable(t *testing.T) {
	t.Parallel()
	data := cogBytes(t, 600, 600)
	handlers := map[string]http.HandlerFunc{
		"status 500": func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) },
		"status 404": func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) },
		"ignores range": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write(data)
		},
		"bad content-range": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Range", "bytes 5-9/100")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(data[5:10])
		},
		"short body": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-32767/100000")
			w.Header().Set("Content-Length", "32768")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(data[:100])
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(h)
			defer srv.Close()
			_, err := Open(context.Background(), NewHTTPSource(srv.Client(), srv.URL), nil)
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("err = %v, want ErrUnavailable", err)
			}
		})
	}
	t.Run("closed server", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		_, err := Open(context.Background(), NewHTTPSource(nil, url), nil)
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("err = %v, want ErrUnavailable", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		srv, _ := rangeServer(t, data)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Open(ctx, NewHTTPSource(srv.Client(), srv.URL), nil)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
			t.Errorf("err = %v, want context.Canceled only", err)
		}
	})
}

// TestHTTPSourceTileFailure checks that a server failing after Open makes
// Sample return ErrUnavailable naming the tile.
func TestHTTPSourceTileFailure(t *testing.T) {
	t.Parallel()
	data := cogBytes(t, 1100, 900)
	var fail atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		http.ServeContent(w, r, "x.tif", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	c, err := Open(context.Background(), NewHTTPSource(srv.Client(), srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	_, _, err = c.Sample(context.Background(), 480700.5, 5599300.5)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if want := "tile 4 (col 1, row 1)"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("err = %v, want it to name %q", err, want)
	}
	fail.Store(false)
	if _, _, err := c.Sample(context.Background(), 480700.5, 5599300.5); err != nil {
		t.Errorf("after recovery: %v", err)
	}
}

// TestParseContentRange covers the Content-Range forms.
func TestParseContentRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in                 string
		first, last, total int64
		ok                 bool
	}{
		{"bytes 0-99/1000", 0, 99, 1000, true},
		{"bytes 5-9/*", 5, 9, -1, true},
		{"bytes */1000", -1, -1, 1000, true},
		{"bytes 9-5/1000", 0, 0, 0, false},
		{"items 0-1/2", 0, 0, 0, false},
		{"bytes x-1/2", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			f, l, tot, ok := parseContentRange(tc.in)
			if ok != tc.ok || (ok && (f != tc.first || l != tc.last || tot != tc.total)) {
				t.Errorf("got %d %d %d %v", f, l, tot, ok)
			}
		})
	}
}

// TestBytesSource checks io.ReaderAt semantics at the end of the data.
func TestBytesSource(t *testing.T) {
	t.Parallel()
	s := BytesSource("abcdef")
	p := make([]byte, 4)
	if n, err := s.ReadAt(context.Background(), p, 4); n != 2 || err != io.EOF {
		t.Errorf("ReadAt at 4 = %d, %v; want 2, EOF", n, err)
	}
	if _, err := s.ReadAt(context.Background(), p, -1); err == nil {
		t.Error("negative offset accepted")
	}
}

// TestHTTPSourceRetries: transient store failures (503, 502) are retried
// with backoff; a lasting one ends as ErrUnavailable after the retries; a
// hung server is left when the request's context ends.
func TestHTTPSourceRetries(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100)
	var calls atomic.Int32
	var fail atomic.Int32 // failures to answer before serving
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if fail.Add(-1) >= 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path == "/hang" {
			<-r.Context().Done()
			return
		}
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	ctx := context.Background()
	buf := make([]byte, 10)

	fail.Store(2)
	if n, err := NewHTTPSource(nil, srv.URL+"/f").ReadAt(ctx, buf, 20); err != nil || n != 10 || string(buf) != "0123456789" {
		t.Fatalf("after two 503: %d %q %v", n, buf, err)
	}
	if c := calls.Load(); c != 3 {
		t.Errorf("%d calls, want 3", c)
	}
	calls.Store(0)
	fail.Store(100)
	if _, err := NewHTTPSource(nil, srv.URL+"/f").ReadAt(ctx, buf, 0); !errors.Is(err, ErrUnavailable) {
		t.Errorf("lasting 503: %v", err)
	}
	if c := calls.Load(); c != retries+1 {
		t.Errorf("%d calls, want %d", c, retries+1)
	}
	fail.Store(0)
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := NewHTTPSource(nil, srv.URL+"/hang").ReadAt(dctx, buf, 0); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("hung server: %v after %v", err, time.Since(start))
	}
}
