package scalerun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/scalegen"
)

// Serve is what the runner measured of svc serve on the data directory.
type Serve struct {
	// ColdStartS is the time from starting the process to the first
	// answered bbox search.
	ColdStartS float64 `json:"cold_start_s"`
	// DatasetBuildings is the building_count /v1/datasets reports.
	DatasetBuildings int `json:"dataset_buildings"`
	// ProbeTile is the generated km searched once; ProbeFeatures its
	// surfaces on the first page (limit 100) and ProbeOwn how many of them
	// carry that tile's building ids.
	ProbeTile     scalegen.Tile `json:"probe_tile"`
	ProbeFeatures int           `json:"probe_features"`
	ProbeOwn      int           `json:"probe_own"`
	// The bbox search load: random 1 km² boxes (one generated tile each),
	// limit 100, Conns clients for DurationS.
	Conns     int     `json:"conns"`
	DurationS float64 `json:"duration_s"`
	Requests  int     `json:"requests"`
	Non200    int     `json:"non_200"`
	ReqPerS   float64 `json:"req_per_s"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
	// Addresses is the address lookup (GET /v1/addresses) over the
	// generated addresses, after the bbox load.
	Addresses AddrLoad `json:"addresses"`
	RSS       int64    `json:"rss_bytes"`      // after the loads
	PeakRSS   int64    `json:"peak_rss_bytes"` // VmHWM after the load
}

// TSInfo is one root tileset.json of a 3D Tiles product.
type TSInfo struct {
	Product string `json:"product"` // path below the data directory
	Bytes   int64  `json:"root_bytes"`
	Tiles   int    `json:"content_files"`
}

// tileBBox is the WGS84 box around a generated km tile, shrunk by inset
// metres on each side.
func tileBBox(t scalegen.Tile, inset float64) string {
	lon0, lat0 := geo.FromUTM(geo.Zone32, float64(t.EKM)*1000+inset, float64(t.NKM)*1000+inset)
	lon1, lat1 := geo.FromUTM(geo.Zone32, float64(t.EKM+1)*1000-inset, float64(t.NKM+1)*1000-inset)
	return fmt.Sprintf("%.6f,%.6f,%.6f,%.6f", min(lon0, lon1), min(lat0, lat1), max(lon0, lon1), max(lat0, lat1))
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// serve starts svc serve, measures the cold start, probes one tile and
// runs the bbox search load; then calls judge with the server's base URL
// while it still runs.
func serve(ctx context.Context, o Options, judge func(base string) error) (Serve, error) {
	m := o.Manifest
	sv := Serve{Conns: o.Conns, DurationS: o.Load.Seconds()}
	if sv.Conns <= 0 {
		sv.Conns = 32
	}
	if o.Load <= 0 {
		sv.DurationS = 10
	}
	addr, err := freePort()
	if err != nil {
		return sv, fmt.Errorf("scalerun: %w", err)
	}
	cmd := exec.CommandContext(ctx, o.SVC, "serve", "--data", o.Data, "--addr", addr, "--log-level", "error")
	// The keyless daily limit would answer 429 after 1000 requests.
	cmd.Env = append(os.Environ(), "SVC_KEYLESS_LIMIT=1000000000")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	base := "http://" + addr
	sv.ProbeTile = m.Tiles[len(m.Tiles)/2]
	probe := base + "/v1/buildings?limit=100&bbox=" + tileBBox(sv.ProbeTile, 100)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return sv, fmt.Errorf("scalerun: svc serve: %w", err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: sv.Conns + 4}}
	var body []byte
	for {
		resp, err := client.Get(probe)
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(t0) > 2*time.Minute {
			return sv, fmt.Errorf("scalerun: svc serve answered no search within 2 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	sv.ColdStartS = time.Since(t0).Seconds()
	var fc struct {
		Features []struct {
			Properties struct {
				GMLID string `json:"gmlid"`
			} `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(body, &fc); err != nil {
		return sv, fmt.Errorf("scalerun: search answer: %w", err)
	}
	code := scalegen.TileCode(sv.ProbeTile)
	for _, f := range fc.Features {
		sv.ProbeFeatures++
		// Buildings keep the AdV prefix with the tile code; parts (UUID and
		// GUID ids in the template) end in it.
		if strings.HasPrefix(f.Properties.GMLID, "DENW"+code) || strings.HasSuffix(f.Properties.GMLID, "_"+code) {
			sv.ProbeOwn++
		}
	}
	sv.DatasetBuildings = datasetBuildings(client, base, m.BL)
	if err := searchLoad(ctx, client, base, m.Tiles, &sv); err != nil {
		return sv, err
	}
	if err := addressLoad(ctx, client, base, m.Addresses, &sv); err != nil {
		return sv, err
	}
	sv.RSS, sv.PeakRSS = procStatus(cmd.Process.Pid, "VmRSS:"), procStatus(cmd.Process.Pid, "VmHWM:")
	return sv, judge(base)
}

func datasetBuildings(c *http.Client, base, blCode string) int {
	resp, err := c.Get(base + "/v1/datasets")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var ds struct {
		Datasets []struct {
			ID    string `json:"id"`
			Count int    `json:"building_count"`
		} `json:"datasets"`
	}
	if json.NewDecoder(resp.Body).Decode(&ds) != nil {
		return -1
	}
	for _, d := range ds.Datasets {
		if d.ID == blCode {
			return d.Count
		}
	}
	return -1
}

// searchLoad sends bbox searches of random generated tiles from
// sv.Conns clients for sv.DurationS and records the latencies.
func searchLoad(ctx context.Context, c *http.Client, base string, tiles []scalegen.Tile, sv *Serve) error {
	urls := make([]string, min(len(tiles), 4096))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range urls {
		urls[i] = base + "/v1/buildings?limit=100&bbox=" + tileBBox(tiles[rng.IntN(len(tiles))], 0)
	}
	deadline := time.Now().Add(time.Duration(sv.DurationS * float64(time.Second)))
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	for w := range sv.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			bad := 0
			for i := w; time.Now().Before(deadline) && ctx.Err() == nil; i += sv.Conns {
				t0 := time.Now()
				resp, err := c.Get(urls[i%len(urls)])
				if err != nil {
					bad++
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat = append(lat, time.Since(t0))
				if resp.StatusCode != http.StatusOK {
					bad++
				}
			}
			mu.Lock()
			all, sv.Non200 = append(all, lat...), sv.Non200+bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(all) == 0 {
		return fmt.Errorf("scalerun: the search load got no answer")
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	sv.Requests, sv.ReqPerS = len(all), float64(len(all))/sv.DurationS
	sv.P50Ms, sv.P99Ms, sv.MaxMs = pct(0.50), pct(0.99), float64(all[len(all)-1].Microseconds())/1000
	return nil
}

// procStatus reads one size field (kB) of /proc/<pid>/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field) {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// tilesets lists every root tileset.json below data (one not below
// another tileset.json) with its size and the content files under it.
func tilesets(data string) []TSInfo {
	var all []string
	filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "tileset.json" {
			all = append(all, p)
		}
		return nil
	})
	var roots []string
	for _, p := range all {
		nested := false
		for _, q := range all {
			if q != p && strings.HasPrefix(p, filepath.Dir(q)+string(filepath.Separator)) {
				nested = true
				break
			}
		}
		if !nested {
			roots = append(roots, p)
		}
	}
	var out []TSInfo
	for _, r := range roots {
		fi, err := os.Stat(r)
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(data, filepath.Dir(r))
		ti := TSInfo{Product: filepath.ToSlash(rel), Bytes: fi.Size()}
		filepath.WalkDir(filepath.Dir(r), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				switch strings.ToLower(filepath.Ext(p)) {
				case ".glb", ".b3dm", ".i3dm", ".pnts", ".cmpt", ".terrain", ".subtree":
					ti.Tiles++
				}
			}
			return nil
		})
		out = append(out, ti)
	}
	slices.SortFunc(out, func(a, b TSInfo) int { return strings.Compare(a.Product, b.Product) })
	return out
}
