package server

import (
	"errors"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/terrain"
)

// damageLog remembers the damaged data files requests ran into (by tile or
// file), for /v1/admin/health and /readyz, until the next rescan publishes
// other packs.
type damageLog struct {
	mu    sync.Mutex
	items map[string]damageItem
}

type damageItem struct {
	At     time.Time
	Detail string
}

func (d *damageLog) note(err error) {
	id := "unknown file"
	var (
		te *terrain.TileError
		de *lod2store.DamagedError
	)
	switch {
	case errors.As(err, &te):
		id = te.TileID
	case errors.As(err, &de) && de.Pack != "":
		id = de.Pack
	}
	d.noteAs(id, err)
}

// noteAs records damage of the file or pack id.
func (d *damageLog) noteAs(id string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.items == nil {
		d.items = map[string]damageItem{}
	}
	if _, seen := d.items[id]; !seen {
		d.items[id] = damageItem{At: time.Now().UTC(), Detail: err.Error()}
	}
}

// list returns "<id>: <detail>" lines, sorted.
func (d *damageLog) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.items))
	for id, it := range d.items {
		out = append(out, id+": "+it.Detail+" (first seen "+it.At.Format(time.RFC3339)+")")
	}
	sort.Strings(out)
	return out
}

// ids returns the damaged files' ids, sorted, without the details (which
// may name paths on the server).
func (d *damageLog) ids() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.items))
	for id := range d.items {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func (d *damageLog) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.items)
}

func (d *damageLog) reset() {
	d.mu.Lock()
	d.items = nil
	d.mu.Unlock()
}

func (s *Server) readyRoutes() []httpapi.Route {
	return []httpapi.Route{{Method: "GET", Path: "/readyz", OpID: "getReadyz", Tag: "Service", Since: "0.2.0", Stability: "beta", Exempt: true,
		Summary: "Readiness: whether this server can answer, and what is degraded",
		Desc: "`/healthz` says the process lives; this says whether it can serve. 200 with `status: ready` when every published pack " +
			"opened and no damaged file was met; 200 with `status: degraded` and the reasons when some packs were skipped at the last " +
			"scan or requests met a damaged file (the rest keeps serving, so a load balancer should keep the replica); 503 with " +
			"`status: not-ready` when nothing is published or the key store does not answer. The problems name packs and files, not the reasons " +
			"(which may name paths on the server): the admin health gives those.",
		Responses: []httpapi.Response{{Status: 200, Desc: "Ready or degraded", Schema: "Readiness"}, {Status: 503, Desc: "Not ready", Schema: "Readiness"}},
		Handle:    s.handleReadyz}}
}

func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.deps.Catalog.Acquire()
	defer release()
	// /readyz is public: it names what is degraded, not why (the reasons
	// name files on the server; the admin health has them).
	var problems []string
	for _, pr := range v.Problems {
		problems = append(problems, "skipped "+pr.Path+" at the last scan")
	}
	for _, id := range s.damage.ids() {
		problems = append(problems, "damaged file "+id)
	}
	published := 0
	for _, p := range pack.Products() {
		published += len(v.Packs(p))
	}
	status, code := "ready", http.StatusOK
	if len(problems) > 0 {
		status = "degraded"
	}
	if published == 0 {
		status, code = "not-ready", http.StatusServiceUnavailable
		problems = append(problems, "no pack is published")
	}
	if s.deps.Access != nil {
		if err := s.deps.Access.Ping(r.Context()); err != nil {
			status, code = "not-ready", http.StatusServiceUnavailable
			problems = append(problems, "the key store does not answer")
		}
	}
	if problems == nil {
		problems = []string{}
	}
	return httpapi.WriteJSON(w, r, code, "no-store", map[string]any{"status": status, "published_packs": published, "problems": problems})
}
