package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestProtocolErrorsAreProblems: requests net/http refuses before any
// handler (a malformed header line, headers over the limit, an unknown
// transfer encoding) are answered with a problem document, not net/http's
// text/plain; a good request on the same listener is unaffected.
func TestProtocolErrorsAreProblems(t *testing.T) {
	f := newFixture(t)
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: f.cat})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, MaxHeaderBytes: 4096, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(srv.Listener(ln))
	t.Cleanup(func() { hs.Close() })
	for _, tc := range []struct {
		name, request, slug string
		status              int
	}{
		{"header line without colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", "bad-request", 400},
		{"malformed request line", "GET\r\n\r\n", "bad-request", 400},
		{"headers over the limit", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 8192) + "\r\n\r\n", "header-fields-too-large", 431},
		{"unknown transfer encoding", "POST /v1/terrain/elevation HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: zip\r\n\r\n", "not-implemented", 501},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := rawRequest(t, ln.Addr().String(), tc.request)
			var p map[string]any
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" ||
				json.Unmarshal(body, &p) != nil || p["type"] != "http://api.test/problems/"+tc.slug || p["status"] != float64(tc.status) {
				t.Errorf("%d %v %s", resp.StatusCode, resp.Header, body)
			}
		})
	}
	if resp, body := rawRequest(t, ln.Addr().String(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); resp.StatusCode != 200 {
		t.Errorf("good request: %d %s", resp.StatusCode, body)
	}
}

func rawRequest(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// TestTileHostErrorsAreProblems: the statuses http.ServeContent answers on
// its own are problems too: 416 keeps Content-Range, 412 is no longer an
// empty body labelled application/json; a satisfiable range still works.
func TestTileHostErrorsAreProblems(t *testing.T) {
	f := newFixture(t)
	const file = "/tiles/terrain-mesh/he/2026-07-20/tiles/0.b3dm"
	for _, tc := range []struct {
		name   string
		hdr    map[string]string
		status int
		slug   string
	}{
		{"range outside the file", map[string]string{"Range": "bytes=999999-"}, 416, "range-not-satisfiable"},
		{"failed If-Match", map[string]string{"If-Match": `"nope"`}, 412, "precondition-failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.do(t, "GET", file, tc.hdr)
			var p map[string]any
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" ||
				json.Unmarshal(body, &p) != nil || !strings.HasSuffix(p["type"].(string), "/"+tc.slug) {
				t.Errorf("%d %v %s", resp.StatusCode, resp.Header, body)
			}
			if tc.status == 416 && resp.Header.Get("Content-Range") != "bytes */10" {
				t.Errorf("Content-Range %q", resp.Header.Get("Content-Range"))
			}
		})
	}
	resp, body := f.do(t, "GET", file, map[string]string{"Range": "bytes=0-3"})
	if resp.StatusCode != 206 || string(body) != "b3dm" {
		t.Errorf("range: %d %q", resp.StatusCode, body)
	}
}

// TestProblemConnKeepsFastPaths: the wrapped connection still offers what
// net/http looks for on a *net.TCPConn: io.ReaderFrom (sendfile for file
// bodies) and CloseWrite (half-close before closing).
func TestProblemConnKeepsFastPaths(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wrapped := (&Server{}).Listener(ln)
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	c, err := wrapped.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(io.ReaderFrom); !ok {
		t.Error("the wrapped connection hides io.ReaderFrom: file bodies lose sendfile")
	}
	if _, ok := c.(interface{ CloseWrite() error }); !ok {
		t.Error("the wrapped connection hides CloseWrite")
	}
}
