package server

import (
	"fmt"
	"net/http"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/metrics"
)

// handleMetrics answers GET /metrics: the request metrics, the published
// packs and their damage, the quantized-mesh cache and the runtime.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v := s.deps.Catalog.Current()
	per := map[pack.Product]int{}
	for _, p := range pack.Products() {
		per[p] = v.BLCount(p)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	s.metrics.Write(w, per, v.BLCount(""))
	packs := map[pack.Product]int{}
	for _, p := range pack.Products() {
		packs[p] = len(v.Packs(p))
	}
	fmt.Fprintln(w, "# HELP svc_packs_published Published packs (newest snapshot per BL) by product.")
	fmt.Fprintln(w, "# TYPE svc_packs_published gauge")
	for _, p := range pack.Products() {
		fmt.Fprintf(w, "svc_packs_published{product=%q} %d\n", string(p), packs[p])
	}
	// Quarantine: what is kept out of service, so an alert can fire before
	// a user meets it (the same lists as /readyz).
	fmt.Fprintln(w, "# HELP svc_packs_skipped Packs left unpublished at the last scan (missing, unfinished or not matching their manifest).")
	fmt.Fprintln(w, "# TYPE svc_packs_skipped gauge")
	fmt.Fprintf(w, "svc_packs_skipped %d\n", len(v.Problems))
	fmt.Fprintln(w, "# HELP svc_damaged_files Published files found damaged (by a request or the background verification) since the last scan.")
	fmt.Fprintln(w, "# TYPE svc_damaged_files gauge")
	fmt.Fprintf(w, "svc_damaged_files %d\n", s.damage.count())
	hits, builds, bytes := s.qmesh.CacheStats()
	fmt.Fprintf(w, "# HELP svc_qmesh_cache_hits_total Quantized-mesh tiles answered from the cache.\n# TYPE svc_qmesh_cache_hits_total counter\nsvc_qmesh_cache_hits_total %d\n", hits)
	fmt.Fprintf(w, "# HELP svc_qmesh_tiles_built_total Quantized-mesh tiles built.\n# TYPE svc_qmesh_tiles_built_total counter\nsvc_qmesh_tiles_built_total %d\n", builds)
	fmt.Fprintf(w, "# HELP svc_qmesh_cache_bytes Bytes of gzip tiles in the quantized-mesh cache.\n# TYPE svc_qmesh_cache_bytes gauge\nsvc_qmesh_cache_bytes %d\n", bytes)
	metrics.WriteRuntime(w)
	return nil
}
