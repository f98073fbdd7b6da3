package keysadmin

import (
	"net/http"
	"os"
	"time"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
)

// AuthDoc is the credential of every /v1/admin route: the server's admin
// token, sent as X-Svc-Admin-Token or as an Authorization bearer token.
const AuthDoc = "Requires the server's admin token, sent as header `X-Svc-Admin-Token` or as `Authorization: Bearer <token>` " +
	"(compared in constant time). 401 without a matching token; 403 when the server has no admin token configured."

// AdminRoutes are the dataset reload and health routes; the server puts
// them on its adminAPI surface.
func AdminRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	return []httpapi.Route{
		{Method: "POST", Path: "/v1/admin/datasets", OpID: "reloadDatasets", Tag: "Admin", Exempt: true, Stability: "beta", Since: "0.1.0", Budget: httpapi.LongBudget,
			Summary: "Rescan the data directory and publish what finished importing",
			Desc: "Equivalent to SIGHUP. Packs whose import finished become visible, removed packs disappear, and a newer snapshot " +
				"replaces the older one atomically: requests in flight finish on the old one. No request body. " + AuthDoc,
			Responses: []httpapi.Response{{Status: 200, Desc: "What is published after the rescan", Schema: "DatasetReloadResponse"},
				{Status: 401, Desc: "Missing or wrong admin token", Schema: "Problem"}, {Status: 403, Desc: "No admin token configured", Schema: "Problem"}},
			Handle: s.handleReload},
		{Method: "GET", Path: "/v1/admin/health", OpID: "getAdminHealth", Tag: "Admin", Exempt: true, Stability: "beta", Since: "0.1.0",
			Summary: "Liveness of the core components",
			Desc: "Runs real probes: the side database (keys and counters; a write), the data directory, every published pack (manifest and files readable), and the packs that were " +
				"skipped at the last scan (reported as failed probes with the reason). `status` is `ok` when every probe passes, else `degraded`. " + AuthDoc,
			Responses: []httpapi.Response{{Status: 200, Desc: "Health report", Schema: "AdminHealthResponse"},
				{Status: 401, Desc: "Missing or wrong admin token", Schema: "Problem"}, {Status: 403, Desc: "No admin token configured", Schema: "Problem"}},
			Handle: s.handleAdminHealth},
	}
}

type publishedPack struct {
	Product  string `json:"product"`
	BL       string `json:"bundesland_code"`
	Snapshot string `json:"snapshot"`
}

func (s *surface) handleReload(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, err := s.Reload()
	if err != nil {
		return err
	}
	s.ResetDamage() // a rescan is how the operator says the data was repaired
	s.VerifyInBackground(r.Context())
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", reloadResponse(v))
}

func reloadResponse(v *catalog.View) any {
	pub := []publishedPack{}
	for _, prod := range pack.Products() {
		for _, p := range v.Packs(prod) {
			pub = append(pub, publishedPack{string(prod), p.Manifest.BL, p.Manifest.Snapshot})
		}
	}
	problems := v.Problems
	if problems == nil {
		problems = []catalog.Problem{}
	}
	return map[string]any{"published": pub, "count": len(pub), "skipped": problems,
		"scanned_at": v.ScannedAt.Format(time.RFC3339)}
}

// healthProbe is one check of the admin health report.
type healthProbe struct {
	Name      string  `json:"name"`
	Status    string  `json:"status"` // ok or fail
	Detail    string  `json:"detail,omitempty"`
	LatencyMs float64 `json:"latency_ms"`
}

func (s *surface) handleAdminHealth(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	var probes []healthProbe
	run := func(name string, f func() error) {
		start := time.Now()
		p := healthProbe{Name: name, Status: "ok"}
		if err := f(); err != nil {
			p.Status, p.Detail = "fail", err.Error()
		}
		p.LatencyMs = float64(time.Since(start).Microseconds()) / 1000
		probes = append(probes, p)
	}
	if s.Access != nil {
		run("side database (keys, counters): writable", func() error { return s.Access.Ping(r.Context()) })
	}
	for _, prod := range pack.Products() {
		for _, p := range v.Packs(prod) {
			run("pack "+p.Manifest.Key().String(), func() error {
				if _, err := os.Stat(p.Dir); err != nil {
					return err
				}
				return p.Probe(r.Context())
			})
		}
	}
	for _, pr := range v.Problems {
		probes = append(probes, healthProbe{Name: "skipped " + pr.Path, Status: "fail", Detail: pr.Reason})
	}
	for _, d := range s.Damage() {
		probes = append(probes, healthProbe{Name: "damaged file met by a request", Status: "fail", Detail: d})
	}
	status := "ok"
	for _, p := range probes {
		if p.Status != "ok" {
			status = "degraded"
		}
	}
	if probes == nil {
		probes = []healthProbe{}
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", map[string]any{
		"status": status, "probes": probes,
		"lod2_db_bl": v.BLCount(pack.LoD2), "lod2_mesh_bl": v.BLCount(pack.Buildings3D),
		"terrain_tiff_bl": v.BLCount(pack.Terrain), "terrain_mesh_bl": v.BLCount(pack.TerrainMesh),
		"checked_at": s.Now().UTC().Format(time.RFC3339),
	})
}
