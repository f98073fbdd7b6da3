package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/server/httpapi"
)

// reqInfo travels in the request context so the outer middleware can log
// what inner layers learned (the matched route, the key prefix).
type reqInfo struct {
	id        string
	route     *httpapi.Route // the matched route, nil for none
	keyPrefix string
	principal *access.Principal // the authenticated key, nil for keyless requests
	bl        string            // federal state that answered, for usage counters
	resolved  bool              // route holds the ServeMux match (maybe nil)
	preflight bool              // a CORS preflight, answered before routing
	// notConfigured marks a 503 for a feature the operator has not set
	// up (httpapi.ErrNotConfigured): logged at INFO, not ERROR.
	notConfigured bool
}

// reqState is allocated once per request by the middleware.
type reqState struct {
	info     reqInfo
	sw       statusWriter
	idHeader [1]string
}

type ctxKey struct{}

func info(ctx context.Context) *reqInfo {
	ri, _ := ctx.Value(ctxKey{}).(*reqInfo)
	if ri == nil {
		return &reqInfo{}
	}
	return ri
}

func requestID(ctx context.Context) string { return info(ctx).id }

func isDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

// middleware wraps h with, from the outside in: request id, access log and
// metrics, panic recovery, and CORS.
func (s *Server) middleware(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// One allocation for what every request carries (its info, the
		// status writer and the value of its X-Request-Id header).
		st := &reqState{}
		ri, sw := &st.info, &st.sw
		ri.id, sw.ResponseWriter = incomingID(r.Header.Get("X-Request-Id")), w
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri))
		st.idHeader[0] = ri.id
		sw.Header()["X-Request-Id"] = st.idHeader[:]
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "request_id", ri.id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if !sw.wrote {
					s.writeProblem(sw, r, httpapi.ToHTTPError(fmt.Errorf("panic: %v", v)))
				}
			}
			d := time.Since(start)
			pattern := "unmatched"
			switch {
			case ri.preflight:
				pattern = "OPTIONS (preflight)"
			case ri.route != nil:
				pattern = ri.route.Pattern
			}
			s.metrics.Observe(pattern, sw.code(), d)
			level := slog.LevelInfo
			if sw.code() >= 500 && !ri.notConfigured {
				level = slog.LevelError
			}
			if !s.log.Enabled(r.Context(), level) {
				return // the attributes cost more than the request
			}
			s.log.LogAttrs(r.Context(), level, "request",
				slog.String("request_id", ri.id), slog.String("method", r.Method), slog.String("route", pattern),
				slog.String("path", logPath(r)), slog.Int("status", sw.code()), slog.Int64("bytes", sw.n),
				slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.String("key_prefix", ri.keyPrefix))
		}()
		if s.cors(sw, r) {
			return
		}
		h.ServeHTTP(sw, r)
	})
}

// cors adds the CORS headers for any origin and answers preflights. It
// reports whether the request was fully answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	// Shared value slices: header values are read, never changed, after
	// they are set, and one slice allocation per header per request is what
	// a cheap route spends most of its time on.
	h["Access-Control-Allow-Origin"] = hdrAnyOrigin
	h["Access-Control-Expose-Headers"] = hdrExposed
	if r.Method != http.MethodOptions {
		return false
	}
	info(r.Context()).preflight = true
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, X-API-Key, X-Svc-Admin-Token, Authorization, X-Request-Id, If-None-Match, Range")
	h.Set("Access-Control-Max-Age", "86400")
	h.Set("Allow", "GET, HEAD, POST, DELETE, OPTIONS")
	h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// incomingID keeps a caller's request id when it is short and printable, so
// ids can be followed through proxies, and makes a new one otherwise.
func incomingID(id string) string {
	if n := len(id); n >= 8 && n <= 64 && strings.IndexFunc(id, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return id
	}
	return newRequestID()
}

// Request ids are a random per-process prefix and a counter: unique, and
// cheap (no system random call per request).
var (
	idPrefix  = func() string { var b [6]byte; _, _ = rand.Read(b[:]); return hex.EncodeToString(b[:]) }()
	idCounter atomic.Uint64
)

func newRequestID() string {
	var b [28]byte
	n := copy(b[:], idPrefix)
	return string(strconv.AppendUint(b[:n], idCounter.Add(1)+1<<40, 16))
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	n      int64
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var (
	hdrAnyOrigin = []string{"*"}
	hdrExposed   = []string{httpapi.ExposedHeaders}
	hdrJSON      = []string{"application/json"}
	hdrNoStore   = []string{"no-store"}
)
