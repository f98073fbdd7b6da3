// Package benchpeers holds the test that keeps `make bench-peers` from
// rotting: CI runs the script's short mode (one workload per peer, 2 s each)
// against the real peers and checks the table it writes.
package benchpeers

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

func TestBenchPeersShort(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the peer benchmark starts PostgreSQL and builds pg_featureserv")
	}
	testtool.Require(t, "wrk", "apt-get install wrk")
	testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	testtool.Require(t, "psql", "apt-get install postgresql")
	testtool.Require(t, "pgbench", "apt-get install postgresql")
	testtool.Require(t, "python3", "apt-get install python3")
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) == 0 {
		testtool.Require(t, "initdb", "apt-get install postgresql")
	}
	if m, _ := filepath.Glob("/usr/share/postgresql/*/extension/postgis.control"); len(m) == 0 {
		testtool.Require(t, "postgis.control", "apt-get install postgresql-15-postgis-3")
	}
	out := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "./run.sh", "--short")
	cmd.Env = append(os.Environ(), "OUT="+out, "BASEPORT=18280")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run.sh --short: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(filepath.Join(out, "latest-short.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Rows []struct {
			Workload, Peer string
			P              float64 `json:"peer_rps"`
			S              float64 `json:"svc_rps"`
		}
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("results JSON: %v\n%s", err, raw)
	}
	peers := map[string]bool{}
	mvt := map[string]float64{} // svc tiles/s of the building MVT rows, cold and warm
	for _, r := range res.Rows {
		if r.P <= 0 || r.S <= 0 {
			t.Errorf("%s vs %s: peer %.0f, svc %.0f: every figure must be measured", r.Workload, r.Peer, r.P, r.S)
		}
		peers[strings.Fields(r.Peer)[0]] = true
		for _, k := range []string{"cold", "warm"} {
			if strings.HasPrefix(r.Workload, "building MVT z15, "+k) && strings.Contains(r.Peer, "ST_AsMVT") {
				mvt[k] = r.S
			}
		}
	}
	// run.sh compared the tiles of both sides before measuring (it fails
	// otherwise); the cold svc cuts every tile, so it cannot match the
	// tile cache.
	if mvt["cold"] <= 0 || mvt["warm"] <= 0 {
		t.Errorf("building MVT rows against PostGIS ST_AsMVT missing (cold and warm): %s", raw)
	} else if mvt["cold"] >= mvt["warm"] {
		t.Errorf("building MVT: svc cold %.0f tiles/s, warm %.0f: the cold server must be cutting every tile", mvt["cold"], mvt["warm"])
	}
	for _, p := range []string{"Go", "pg_featureserv", "PostGIS", "gdallocationinfo"} {
		if !peers[p] {
			t.Errorf("no row for peer %s in %s", p, raw)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "latest-short.md"))
	if !strings.Contains(string(md), "| workload | peer |") {
		t.Errorf("Markdown table missing:\n%s", md)
	}
}
