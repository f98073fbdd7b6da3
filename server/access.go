package server

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/state"
)

// setBL records which federal state answered the request, for the per-BL
// usage counters. Handlers call it once they know the BL.
func setBL(ctx context.Context, code string) { info(ctx).bl = code }

// matched is the route r matches, nil for none, found once per request.
func (s *Server) matched(r *http.Request) *httpapi.Route {
	ri := info(r.Context())
	if !ri.resolved {
		if rt, ok := s.exact[methodPath{r.Method, r.URL.Path}]; ok && r.Host != "" {
			ri.route = rt
		} else {
			_, pattern := s.mux.Handler(r)
			ri.route = s.byPattern[pattern]
		}
		ri.resolved = true
	}
	return ri.route
}

// accessControl applies SPEC 5 and 8 to every request of a surface under
// access (the matched route's, or its path's in pathSurfaces) before it
// reaches its handler, so 404, 405 and 422 answers count too: on a keyed
// surface a valid X-API-Key is counted against the key's quota and a bad
// one gets 401; on a counted surface requests without a key are counted
// against the keyless budget of the client IP and get 429 past it. Exempt
// routes are never counted.
func (s *Server) accessControl(next http.Handler) http.Handler {
	acc := s.deps.Access
	if acc == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sf *httpapi.Surface
		counted, pattern := false, "unmatched"
		if rt := s.matched(r); rt != nil {
			sf, counted, pattern = rt.Surface, rt.Counted(), rt.Pattern
		} else {
			sf = pathSurface(r.URL.Path)
			counted = sf.Counted
		}
		if !sf.Access {
			next.ServeHTTP(w, r)
			return
		}
		sw, ok := w.(*statusWriter)
		if !ok {
			sw = &statusWriter{ResponseWriter: w}
		}
		if keys, ok := r.Header["X-Api-Key"]; ok && sf.Keyed {
			s.keyed(sw, r, next, strings.Join(keys, ","), pattern, counted)
			return
		}
		c := access.ClientOf(s.clientAddr(r))
		if !counted {
			sw.Header().Set("X-Keyless-Remaining", strconv.Itoa(acc.KeylessRemaining(c)))
			next.ServeHTTP(sw, r)
			return
		}
		d := acc.Keyless(c)
		if d.Unavailable {
			// A shared state store (several replicas) is down: the budget can
			// be neither checked nor counted, so nothing is served.
			s.fail(sw, r, httpapi.Report(httpapi.ErrUnavailable, "The usage counters are temporarily unavailable; retry shortly.").
				With(map[string]any{"retry_after": int64(d.RetryAfter.Seconds())}).Because(d.Err))
			acc.Record(state.Anonymous, pattern, info(r.Context()).bl, sw.code())
			return
		}
		sw.Header().Set("X-Keyless-Remaining", strconv.Itoa(d.Remaining))
		if d.Allowed {
			next.ServeHTTP(sw, r)
		} else {
			s.fail(sw, r, s.keylessLimitProblem(d, ""))
		}
		acc.Record(state.Anonymous, pattern, info(r.Context()).bl, sw.code())
	})
}

// keyed serves a request that carries an X-API-Key header.
func (s *Server) keyed(sw *statusWriter, r *http.Request, next http.Handler, key, pattern string, counted bool) {
	acc := s.deps.Access
	p, err := acc.Authenticate(r.Context(), key)
	if err != nil {
		s.fail(sw, r, keyProblem(err))
		return
	}
	info(r.Context()).keyPrefix = p.Prefix
	info(r.Context()).principal = p
	if !counted {
		next.ServeHTTP(sw, r)
		return
	}
	// A store failure while loading the key's totals must not refuse a
	// valid key: the request is served without quota headers.
	if q, err := acc.CountKey(r.Context(), p); err == nil {
		h := sw.Header()
		h.Set("X-Svc-Quota-Used", strconv.FormatInt(q.MonthUsed, 10))
		if q.MonthLimit != nil {
			h.Set("X-Svc-Quota-Limit", strconv.FormatInt(*q.MonthLimit, 10))
		}
		if len(q.Exceeded) > 0 {
			h.Set("X-Svc-Quota-Exceeded", strings.Join(q.Exceeded, ", "))
		}
	} else {
		s.log.Warn("key counters unavailable", "request_id", requestID(r.Context()), "key_prefix", p.Prefix, "err", err)
	}
	next.ServeHTTP(sw, r)
	acc.Record(p.ID, pattern, info(r.Context()).bl, sw.code())
}

// keyProblem maps an authentication failure to its 401 problem; other
// errors pass through (500).
func keyProblem(err error) error {
	var detail string
	switch {
	case errors.Is(err, access.ErrKeyMalformed):
		detail = "The X-API-Key header does not hold a well-formed key (svc_ followed by 32 characters of A-Z, a-z, 0-9, - and _)."
	case errors.Is(err, access.ErrKeyUnknown):
		detail = "The API key in X-API-Key is unknown."
	case errors.Is(err, access.ErrKeyExpired):
		detail = "The API key in X-API-Key has expired; trial keys work for 7 days after their mint."
	case errors.Is(err, access.ErrKeyRevoked):
		detail = "The API key in X-API-Key has been revoked."
	default:
		return err
	}
	return httpapi.Report(httpapi.ErrUnauthorized, "%s Send no key to use the keyless budget.", detail).
		WithHeader("Www-Authenticate", `ApiKey realm="svc", header="X-API-Key"`).Because(err)
}

// keylessLimitProblem is the 429 of SPEC 7.3; why, when not empty, tells
// what made this request go over.
func (s *Server) keylessLimitProblem(d access.Decision, why string) *httpapi.Fault {
	secs := int64(d.RetryAfter.Seconds())
	return httpapi.Report(httpapi.ErrKeylessLimit, "%sThe keyless limit of %d requests per IP address and UTC day is used up; it resets at 00:00 UTC. "+
		"Get a free trial key at %s and send it in the X-API-Key header.", why, d.Limit, s.cfg.KeyURL).
		With(map[string]any{"limit": d.Limit, "retry_after": secs, "key_url": s.cfg.KeyURL, "docs_url": s.cfg.DocsURL})
}

// clientAddr is the client's IP address: the socket peer, or, when the peer
// is a trusted proxy, the rightmost X-Forwarded-For entry (the one that
// proxy appended; entries further left are written by the client and
// ignored).
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	peer := remoteAddr(r.RemoteAddr)
	if !s.trusted(peer) {
		return peer
	}
	xff := r.Header.Values("X-Forwarded-For")
	if len(xff) == 0 {
		return peer
	}
	last := xff[len(xff)-1]
	last = strings.TrimSpace(last[strings.LastIndexByte(last, ',')+1:])
	if a, err := netip.ParseAddr(last); err == nil {
		return a.Unmap()
	}
	if ap, err := netip.ParseAddrPort(last); err == nil {
		return ap.Addr().Unmap()
	}
	return peer
}

func remoteAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	a, _ := netip.ParseAddr(s)
	return a.Unmap()
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
