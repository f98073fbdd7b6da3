package server

import (
	"net/http"

	"github.com/svc-geodata/svc/server/httpapi"
)

// writeProblem renders e for request r under the policy of the surface r
// is on (httpapi.WriteProblem).
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, e *httpapi.HTTPError) {
	httpapi.WriteProblem(w, r, e, s.cfg.ErrorsBase, s.surfaceOf(r))
}
