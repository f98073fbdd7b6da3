package raster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Source is random read access to the bytes of one file, local or remote.
//
// ReadAt follows io.ReaderAt: it reads len(p) bytes at offset off and
// returns n < len(p) only together with an error (io.EOF at the end of the
// file). It must be safe for concurrent use. Size returns the length of the
// file in bytes, or -1 while it is not known yet.
type Source interface {
	ReadAt(ctx context.Context, p []byte, off int64) (int, error)
	Size() int64
}

// BytesSource is a [Source] over a byte slice held in memory.
type BytesSource []byte

// ReadAt copies len(p) bytes at off, returning io.EOF when it reaches the end.
func (b BytesSource) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("raster: negative offset %d", off)
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Size returns len(b).
func (b BytesSource) Size() int64 { return int64(len(b)) }

// HTTPSource is a [Source] reading a remote file with HTTP range requests
// (RFC 9110 section 14). Every failure to get the requested range, apart
// from a cancelled context, wraps [ErrUnavailable].
type HTTPSource struct {
	client *http.Client
	url    string
	size   atomic.Int64
	mu     sync.Mutex
	etag   string // strong ETag of the first answer, sent as If-Match later
}

// DefaultHTTPClient reads pass-through COGs when the caller gives no
// client: bounded connect, TLS and header waits, and an overall cap per
// range request, so a hung object store cannot hold a request forever.
var DefaultHTTPClient = &http.Client{
	Timeout: 30 * time.Second,
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   16,
	},
}

// NewHTTPSource returns a [Source] reading url through client
// (DefaultHTTPClient when nil). It does no I/O: the size is learned from
// the Content-Range of the first answer, so Size returns -1 until then.
func NewHTTPSource(client *http.Client, url string) *HTTPSource {
	if client == nil {
		client = DefaultHTTPClient
	}
	s := &HTTPSource{client: client, url: url}
	s.size.Store(-1)
	return s
}

// Size returns the remote file size in bytes, or -1 before the first read.
func (s *HTTPSource) Size() int64 { return s.size.Load() }

// ReadAt fetches bytes [off, off+len(p)) with one GET request carrying a
// Range header. A network error, a status other than 206 or 416, a server
// that ignores Range (200), a changed ETag or a short body wrap
// [ErrUnavailable]; a cancelled ctx returns the context's error.
func (s *HTTPSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("raster: negative offset %d", off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := len(p)
	if size := s.size.Load(); size >= 0 {
		if off >= size {
			return 0, io.EOF
		}
		want = int(min(int64(want), size-off))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return 0, fmt.Errorf("raster: http source: %w: %w", ErrUnavailable, err)
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+int64(want)-1))
	s.mu.Lock()
	if s.etag != "" {
		req.Header.Set("If-Match", s.etag)
	}
	s.mu.Unlock()
	var lastErr error
	for attempt := range retries + 1 {
		if attempt > 0 {
			// Backoff 100 ms, 300 ms: a transient failure of the store
			// (connection reset, 502/503) often passes that quickly.
			select {
			case <-time.After(time.Duration(100*(2*attempt-1)) * time.Millisecond):
			case <-ctx.Done():
				return 0, fmt.Errorf("raster: http source: %w", ctx.Err())
			}
		}
		resp, err := s.client.Do(req.Clone(ctx))
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return 0, fmt.Errorf("raster: http source: %w", cerr)
			}
			lastErr = fmt.Errorf("raster: http source: %w: %w", ErrUnavailable, err)
			continue
		}
		n, err := s.readResponse(ctx, resp, p, off, want)
		_ = resp.Body.Close()
		if err == nil || !retryable(resp.StatusCode) {
			return n, err
		}
		lastErr = err
	}
	return 0, lastErr
}

// retries is how often a failed range request is repeated.
const retries = 2

// retryable reports statuses worth asking again: the store's transient
// failures, not answers about the request itself.
func retryable(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable ||
		status == http.StatusGatewayTimeout || status == http.StatusTooManyRequests || status == http.StatusInternalServerError
}

// readResponse checks the answer to one range request and copies its body.
func (s *HTTPSource) readResponse(ctx context.Context, resp *http.Response, p []byte, off int64, want int) (int, error) {
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusRequestedRangeNotSatisfiable:
		if _, _, total, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && total >= 0 {
			s.size.Store(total)
		}
		return 0, io.EOF
	case http.StatusOK:
		return 0, fmt.Errorf("raster: http source: server ignored Range: %w", ErrUnavailable)
	default:
		return 0, fmt.Errorf("raster: http source: status %d: %w", resp.StatusCode, ErrUnavailable)
	}
	first, last, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
	if !ok || first != off || last < first || last-first+1 > int64(want) {
		return 0, fmt.Errorf("raster: http source: bad Content-Range %q: %w",
			resp.Header.Get("Content-Range"), ErrUnavailable)
	}
	if total >= 0 {
		s.size.Store(total)
	}
	s.rememberETag(resp.Header.Get("ETag"))
	got := int(last - first + 1)
	n, err := io.ReadFull(resp.Body, p[:got])
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return n, fmt.Errorf("raster: http source: %w", cerr)
		}
		return n, fmt.Errorf("raster: http source: short body: %w: %w", ErrUnavailable, err)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// rememberETag keeps the first strong ETag so later requests fail with 412
// instead of mixing bytes of two versions of the file.
func (s *HTTPSource) rememberETag(etag string) {
	if etag == "" || strings.HasPrefix(etag, "W/") {
		return
	}
	s.mu.Lock()
	if s.etag == "" {
		s.etag = etag
	}
	s.mu.Unlock()
}

// parseContentRange parses "bytes first-last/total" (total may be "*",
// returned as -1) and "bytes */total" (first and last -1).
func parseContentRange(v string) (first, last, total int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	total = -1
	if tot != "*" {
		t, err := strconv.ParseInt(tot, 10, 64)
		if err != nil || t < 0 {
			return 0, 0, 0, false
		}
		total = t
	}
	if rng == "*" {
		return -1, -1, total, true
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	f, err1 := strconv.ParseInt(a, 10, 64)
	l, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || f < 0 || l < f {
		return 0, 0, 0, false
	}
	return f, l, total, true
}

// prefixSource serves reads inside the first bytes of a file from memory, so
// that parsing a COG header costs one request instead of one per tag.
type prefixSource struct {
	src    Source
	prefix []byte
	eof    bool // prefix holds the whole file
}

// newPrefixSource reads up to n bytes at offset 0 of src.
func newPrefixSource(ctx context.Context, src Source, n int) (*prefixSource, error) {
	if size := src.Size(); size >= 0 && size < int64(n) {
		n = int(size)
	}
	buf := make([]byte, n)
	got, err := src.ReadAt(ctx, buf, 0)
	eof := false
	if err != nil {
		if !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("raster: read header: %w", err)
		}
		eof = true
	}
	return &prefixSource{src: src, prefix: buf[:got], eof: eof}, nil
}

// size returns the file size, or -1 when unknown.
func (p *prefixSource) size() int64 {
	if p.eof {
		return int64(len(p.prefix))
	}
	return p.src.Size()
}

// read returns n bytes at off. Bytes inside the prefix are returned without
// copying and must not be modified. A read past the end wraps [ErrCorrupt],
// because every offset read comes from the file itself.
func (p *prefixSource) read(ctx context.Context, off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("raster: read %d bytes at %d: %w", n, off, ErrCorrupt)
	}
	if size := p.size(); size >= 0 && (off > size || int64(n) > size-off) {
		return nil, fmt.Errorf("raster: read %d bytes at %d beyond end %d: %w", n, off, size, ErrCorrupt)
	}
	if off+int64(n) <= int64(len(p.prefix)) {
		return p.prefix[off : off+int64(n)], nil
	}
	buf := make([]byte, n)
	got, err := p.src.ReadAt(ctx, buf, off)
	if got == n {
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("raster: read %d bytes at %d: short read %d: %w", n, off, got, ErrCorrupt)
	}
	return nil, fmt.Errorf("raster: read %d bytes at %d: %w", n, off, err)
}

// release forgets the prefix once the header is parsed, so that many open
// COGs do not each pin it; a prefix that holds the whole file is kept.
func (p *prefixSource) release() {
	if !p.eof {
		p.prefix = nil
	}
}
