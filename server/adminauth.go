package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/state"
)

// authorizeAdmin checks the admin credential of a route declared admin,
// before its parameters are read (a caller without the token learns
// nothing of them), and names the request as the actor of the key changes
// it makes in the audit trail.
func (s *Server) authorizeAdmin(w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	if s.cfg.AdminToken == "" {
		return r, httpapi.Report(httpapi.ErrForbidden, "Admin endpoints are disabled: the server has no admin token configured (--admin-token).")
	}
	tok := r.Header.Get("X-Svc-Admin-Token")
	if tok == "" {
		if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			tok = strings.TrimSpace(a[7:])
		}
	}
	want, got := sha256.Sum256([]byte(s.cfg.AdminToken)), sha256.Sum256([]byte(tok))
	if tok == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return r, httpapi.Report(httpapi.ErrUnauthorized, "This endpoint requires the admin token in X-Svc-Admin-Token or Authorization: Bearer.").
			WithHeader("Www-Authenticate", `Bearer realm="svc-admin"`)
	}
	actor := "admin-api"
	if id := w.Header().Get("X-Request-Id"); id != "" {
		actor += " request " + id
	}
	return r.WithContext(state.WithActor(r.Context(), actor)), nil
}
