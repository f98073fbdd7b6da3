package cmd

import (
	"bufio"
	"math"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPlanGCPolicy(t *testing.T) {
	const gib, mib = int64(1 << 30), int64(1 << 20)
	env := func(cgroup, machine int64, vars ...string) gcEnv {
		return gcEnv{
			lookup: func(name string) (string, bool) {
				for _, kv := range vars {
					if k, v, _ := strings.Cut(kv, "="); k == name {
						return v, true
					}
				}
				return "", false
			},
			cgroupLimit: func() int64 { return cgroup },
			machine:     func() int64 { return machine },
		}
	}
	for _, tc := range []struct {
		name, limit, headroom string
		env                   gcEnv
		want                  gcPolicy
	}{
		{"machine", "auto", "64MiB", env(0, 8*gib), gcPolicy{MemoryLimit: 4 * gib, LimitFrom: "machine", Headroom: 64 * mib}},
		{"cgroup", "auto", "64MiB", env(2*gib, 8*gib), gcPolicy{MemoryLimit: 1536 * mib, LimitFrom: "cgroup", Headroom: 64 * mib}},
		{"cgroup above the machine", "auto", "64MiB", env(16*gib, 8*gib), gcPolicy{MemoryLimit: 4 * gib, LimitFrom: "machine", Headroom: 64 * mib}},
		{"memory unknown", "auto", "64MiB", env(0, 0), gcPolicy{MemoryLimit: math.MaxInt64, LimitFrom: "none", Headroom: 64 * mib}},
		{"GOMEMLIMIT stands under auto", "auto", "64MiB", env(0, 8*gib, "GOMEMLIMIT=1GiB"), gcPolicy{LimitFrom: "GOMEMLIMIT", Headroom: 64 * mib}},
		{"flag wins over GOMEMLIMIT", "512MiB", "64MiB", env(0, 8*gib, "GOMEMLIMIT=1GiB"), gcPolicy{MemoryLimit: 512 * mib, LimitFrom: "flag", Headroom: 64 * mib}},
		{"decimal units", "1.5GB", "64MiB", env(0, 8*gib), gcPolicy{MemoryLimit: 1_500_000_000, LimitFrom: "flag", Headroom: 64 * mib}},
		{"percentage", "25%", "64MiB", env(2*gib, 8*gib), gcPolicy{MemoryLimit: 512 * mib, LimitFrom: "flag", Headroom: 64 * mib}},
		{"off", "off", "64MiB", env(0, 8*gib, "GOMEMLIMIT=1GiB"), gcPolicy{MemoryLimit: math.MaxInt64, LimitFrom: "flag", Headroom: 64 * mib}},
		{"GOGC stands", "auto", "64MiB", env(0, 8*gib, "GOGC=200"), gcPolicy{MemoryLimit: 4 * gib, LimitFrom: "machine", GOGCFrom: "GOGC"}},
		{"GOGC and GOMEMLIMIT stand", "auto", "256MiB", env(0, 8*gib, "GOGC=off", "GOMEMLIMIT=4GiB"), gcPolicy{LimitFrom: "GOMEMLIMIT", GOGCFrom: "GOGC"}},
		{"headroom off", "auto", "off", env(0, 8*gib), gcPolicy{MemoryLimit: 4 * gib, LimitFrom: "machine"}},
		{"headroom 0", "auto", "0", env(0, 8*gib), gcPolicy{MemoryLimit: 4 * gib, LimitFrom: "machine"}},
		{"headroom in bytes", "auto", "1000000", env(0, 8*gib), gcPolicy{MemoryLimit: 4 * gib, LimitFrom: "machine", Headroom: 1_000_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := planGCPolicy(tc.limit, tc.headroom, tc.env)
			if err != nil || got != tc.want {
				t.Errorf("planGCPolicy(%q, %q) = %+v, %v; want %+v", tc.limit, tc.headroom, got, err, tc.want)
			}
		})
	}
	for _, bad := range [][2]string{{"lots", "64MiB"}, {"150%", "64MiB"}, {"0%", "64MiB"}, {"-1GiB", "64MiB"}, {"1e9", "64MiB"}, {"2 parsecs", "64MiB"},
		{"auto", "much"}, {"auto", "-5MiB"}} {
		if p, err := planGCPolicy(bad[0], bad[1], env(0, 8*gib)); err == nil {
			t.Errorf("planGCPolicy(%q, %q) = %+v, want an error", bad[0], bad[1], p)
		}
	}
	if _, err := planGCPolicy("50%", "64MiB", env(0, 0)); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("a percentage of unknown memory: %v", err)
	}
}

// gogcNow reads GOGC without changing it.
func gogcNow() int64 {
	s := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}}
	rtmetrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestApplyGCPolicy applies a policy to this process and reads it back
// from the runtime: the memory limit, and GOGC retuned after a collection
// so that the heap goal is the live heap plus the headroom.
func TestApplyGCPolicy(t *testing.T) {
	const headroom = 96 << 20
	prevLimit, prevGOGC := debug.SetMemoryLimit(-1), gogcNow()
	restore := applyGCPolicy(gcPolicy{MemoryLimit: 3 << 30, Headroom: headroom})
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("memory limit %d, want %d", got, 3<<30)
	}
	keep := make([][]byte, 0, 64) // a live heap well above 4 MB
	for range 64 {
		keep = append(keep, make([]byte, 1<<20))
	}
	var want int64
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		runtime.GC() // the tuner runs in the finalizer goroutine after it
		time.Sleep(20 * time.Millisecond)
		s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
		rtmetrics.Read(s)
		want = int64(gogcFor(int64(s[0].Value.Uint64()), headroom))
		if gogcNow() == want {
			break
		}
	}
	if got := gogcNow(); got != want || got <= 100 {
		t.Errorf("GOGC %d after a collection, want %d (> 100)", got, want)
	}
	runtime.KeepAlive(keep)
	restore()
	if got := debug.SetMemoryLimit(-1); got != prevLimit {
		t.Errorf("memory limit %d after restore, want %d", got, prevLimit)
	}
	if got := gogcNow(); got != prevGOGC {
		t.Errorf("GOGC %d after restore, want %d", got, prevGOGC)
	}
	if g := gogcFor(1<<30, 64<<20); g != 100 {
		t.Errorf("a 1 GiB live heap: GOGC %d, want Go's 100", g)
	}
	if g := gogcFor(0, 64<<20); g != 1600 {
		t.Errorf("an empty heap: GOGC %d, want 1600 (a 64 MiB goal)", g)
	}
}

// TestServeGCPolicy starts the svc binary as an operator would, with the
// flags and environment of each case, and reads the policy that applies
// from its /metrics: GOGC and the memory limit.
func TestServeGCPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the svc binary")
	}
	bin, err := buildSvc()
	if err != nil {
		t.Fatal(err)
	}
	auto := machineMemory() / 2
	if cg, m := cgroupMemoryLimit(), machineMemory(); cg > 0 && (m <= 0 || cg <= m) {
		auto = cg / 4 * 3
	}
	const mib = 1 << 20
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		limit int64 // want
		gogc  func(int64) bool
		about string
	}{
		{"default", nil, nil, auto, func(g int64) bool { return g > 100 }, "GOGC above 100 (the 64 MiB headroom)"},
		{"GOGC stands", []string{"GOGC=50"}, nil, auto, func(g int64) bool { return g == 50 }, "GOGC 50"},
		{"GOMEMLIMIT stands", []string{"GOMEMLIMIT=300MiB"}, nil, 300 * mib, func(g int64) bool { return g > 100 }, "GOGC above 100"},
		{"flag over GOMEMLIMIT", []string{"GOMEMLIMIT=300MiB"}, []string{"--memory-limit", "200MiB"}, 200 * mib, func(g int64) bool { return g > 100 }, "GOGC above 100"},
		{"SVC_MEMORY_LIMIT over GOMEMLIMIT", []string{"GOMEMLIMIT=300MiB", "SVC_MEMORY_LIMIT=off"}, nil, math.MaxInt64, func(g int64) bool { return g > 100 }, "GOGC above 100"},
		{"headroom off", nil, []string{"--gc-headroom", "off"}, auto, func(g int64) bool { return g == 100 }, "Go's GOGC 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := freeAddr(t)
			cmd := exec.Command(bin, append([]string{"serve", "--init", "--data", t.TempDir(), "--addr", addr, "--quiet", "--log-level", "warn"}, tc.args...)...)
			cmd.Env = append(cleanEnv(), tc.env...)
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			base := "http://" + addr
			waitUp(t, base+"/healthz")
			m := scrape(t, base+"/metrics")
			if got := int64(m["go_gc_gomemlimit_bytes"]); got != tc.limit && !(tc.limit == math.MaxInt64 && m["go_gc_gomemlimit_bytes"] >= math.MaxInt64) {
				t.Errorf("go_gc_gomemlimit_bytes %v, want %d", m["go_gc_gomemlimit_bytes"], tc.limit)
			}
			if g := int64(m["go_gc_gogc_percent"]); !tc.gogc(g) {
				t.Errorf("go_gc_gogc_percent %d, want %s", g, tc.about)
			}
		})
	}
}

// cleanEnv is the test's environment without the variables the cases set.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOGC" && k != "GOMEMLIMIT" && !strings.HasPrefix(k, "SVC_") {
			out = append(out, kv)
		}
	}
	return out
}

// scrape reads the samples of a Prometheus text page.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[name] = f
		}
	}
	return out
}
