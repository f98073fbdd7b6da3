package server

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/terrain"
)

// The batch point limit (Config.BatchMaxPoints) and what a batch costs:
// one call per started 100 points.
const (
	defaultBatchPoints   = 10000
	pointsPerCountedCall = 100
)

func (s *Server) batchMax() int {
	if s.cfg.BatchMaxPoints > 0 {
		return s.cfg.BatchMaxPoints
	}
	return defaultBatchPoints
}

// charge counts a request that costs units calls: the access layer counted
// one when it admitted the request; the rest is counted here, and a budget
// the batch exceeds is answered 429.
func (s *Server) charge(w http.ResponseWriter, r *http.Request, units int) error {
	acc := s.deps.Access
	if acc == nil || units <= 1 {
		return nil
	}
	ri := info(r.Context())
	if ri.principal != nil {
		// Key quotas are reported, not enforced (X-Svc-Quota-Exceeded), for
		// a batch as for a single call.
		if _, err := acc.CountKeyN(r.Context(), ri.principal, units-1); err != nil {
			s.log.Warn("key counters unavailable", "request_id", requestID(r.Context()), "key_prefix", ri.principal.Prefix, "err", err)
		}
		return nil
	}
	d := acc.KeylessN(access.ClientOf(s.clientAddr(r)), units-1)
	if !d.Unavailable {
		w.Header().Set("X-Keyless-Remaining", strconv.Itoa(max(0, d.Remaining)))
	}
	if !d.Allowed && !d.Unavailable {
		return s.keylessLimitProblem(d, fmt.Sprintf("This batch costs %d calls (one per started %d points), more than the %d keyless calls left today. ",
			units, pointsPerCountedCall, d.Remaining))
	}
	return nil
}

// noteBatchDamage lists the damaged tiles a batch met in the damage log.
func (s *Server) noteBatchDamage(res []terrain.PointResult) {
	for i := range res {
		if res[i].Reason == terrain.ReasonDamaged {
			s.damage.note(res[i].Err)
		}
	}
}

// chargePoints counts a request for points locations (the batch elevation
// and opentopodata routes): one call per started pointsPerCountedCall.
func (s *Server) chargePoints(w http.ResponseWriter, r *http.Request, points int) error {
	return s.charge(w, r, (points+pointsPerCountedCall-1)/pointsPerCountedCall)
}
