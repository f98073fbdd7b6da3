package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The garbage collector policy of `svc serve` (docs/performance.md, "GC
// policy"). Go's default (GOGC=100) collects whenever the heap has doubled;
// a server whose live heap is a few MB then collects hundreds of times a
// second under load, and each cycle's assists and pauses land in the
// latency tail. svc serve instead
//
//   - lets the heap grow by at least --gc-headroom (64 MiB) between
//     collections: after each collection GOGC is set to
//     100 x max(live, headroom) / live, so a small live heap gets the
//     headroom and a large one the usual doubling (GOGC >= 100);
//   - sets a soft memory limit (--memory-limit, default auto: 3/4 of the
//     cgroup's memory limit, or 1/2 of the machine's memory), under which
//     the runtime collects harder however GOGC stands.
//
// A user's GOGC turns the headroom off (their GOGC stands); a user's
// GOMEMLIMIT stands unless --memory-limit is given (on the command line,
// as SVC_MEMORY_LIMIT or in the configuration file), which wins.

// defaultGCHeadroom is the default of --gc-headroom.
const defaultGCHeadroom = "64MiB"

// gcPolicy is what applyGCPolicy does.
type gcPolicy struct {
	// MemoryLimit is the soft limit to set in bytes (math.MaxInt64: none);
	// 0 leaves the runtime's (GOMEMLIMIT, or none).
	MemoryLimit int64
	LimitFrom   string // where the limit comes from: flag, GOMEMLIMIT, cgroup, machine, none
	// Headroom is the least heap growth between collections in bytes; 0
	// leaves GOGC as the runtime has it.
	Headroom int64
	GOGCFrom string // GOGC when the user's GOGC stands
}

// gcEnv is what the policy is decided from besides the flags.
type gcEnv struct {
	lookup      func(string) (string, bool) // os.LookupEnv
	cgroupLimit func() int64                // bytes, 0 when none
	machine     func() int64                // bytes of memory, 0 when unknown
}

var systemGCEnv = gcEnv{lookup: os.LookupEnv, cgroupLimit: cgroupMemoryLimit, machine: machineMemory}

// planGCPolicy decides the policy from the values of --memory-limit
// (auto, off, a size such as 2GiB or 1500MB, or a percentage of the
// cgroup's or machine's memory such as 50%) and --gc-headroom (a size; 0
// or off: none).
func planGCPolicy(memoryLimit, headroom string, env gcEnv) (gcPolicy, error) {
	var p gcPolicy
	total, from := env.cgroupLimit(), "cgroup"
	if m := env.machine(); total <= 0 || m > 0 && m < total {
		total, from = m, "machine"
	}
	switch v := strings.TrimSpace(strings.ToLower(memoryLimit)); {
	case v == "auto":
		if _, set := env.lookup("GOMEMLIMIT"); set {
			p.LimitFrom = "GOMEMLIMIT"
			break
		}
		switch {
		case total <= 0:
			p.MemoryLimit, p.LimitFrom = math.MaxInt64, "none"
		case from == "cgroup":
			p.MemoryLimit, p.LimitFrom = total/4*3, from
		default:
			p.MemoryLimit, p.LimitFrom = total/2, from
		}
	case v == "off" || v == "0":
		p.MemoryLimit, p.LimitFrom = math.MaxInt64, "flag"
	case strings.HasSuffix(v, "%"):
		pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || pct <= 0 || pct > 100 {
			return p, fmt.Errorf("--memory-limit %q: a percentage must be above 0 and at most 100", memoryLimit)
		}
		if total <= 0 {
			return p, fmt.Errorf("--memory-limit %q: the memory of this machine is unknown; give a size such as 2GiB", memoryLimit)
		}
		p.MemoryLimit, p.LimitFrom = int64(float64(total)*pct/100), "flag"
	default:
		n, err := parseSize(v)
		if err != nil {
			return p, fmt.Errorf("--memory-limit %q: %w (or auto, off, a percentage)", memoryLimit, err)
		}
		p.MemoryLimit, p.LimitFrom = n, "flag"
	}
	if _, set := env.lookup("GOGC"); set {
		p.GOGCFrom = "GOGC"
		return p, nil
	}
	if h := strings.TrimSpace(strings.ToLower(headroom)); h != "off" {
		n, err := parseSize(h)
		if err != nil {
			return p, fmt.Errorf("--gc-headroom %q: %w (or off)", headroom, err)
		}
		p.Headroom = n
	}
	return p, nil
}

// parseSize reads a byte count: digits with an optional fraction and unit
// (B, KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of
// 1024, the units of GOMEMLIMIT), case-insensitive.
func parseSize(s string) (int64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	mult := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[strings.ToLower(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || f < 0 || strings.ContainsAny(num, "eE") {
		return 0, fmt.Errorf("not a size such as 512MiB or 2GB")
	}
	if f*mult >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(f * mult), nil
}

// gcTuner sets GOGC after each collection so that the heap may grow by
// at least its headroom before the next one.
type gcTuner struct {
	headroom int64
	stopped  atomic.Bool
	mu       sync.Mutex
	samples  [1]rtmetrics.Sample
}

// gcSentinel is garbage whose finalizer runs once per collection. It holds
// a pointer, so that it is not batched with other tiny objects (whose
// finalizers may never run).
type gcSentinel struct {
	t   *gcTuner
	pad [8]byte
}

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t: t}, func(s *gcSentinel) {
		if s.t.stopped.Load() {
			return
		}
		s.t.tune()
		s.t.arm()
	})
}

// tune sets GOGC from the heap live after the last collection.
func (t *gcTuner) tune() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped.Load() {
		return
	}
	t.samples[0].Name = "/gc/heap/live:bytes"
	rtmetrics.Read(t.samples[:])
	live := int64(0)
	if t.samples[0].Value.Kind() == rtmetrics.KindUint64 {
		live = int64(t.samples[0].Value.Uint64())
	}
	debug.SetGCPercent(gogcFor(live, t.headroom))
}

// gogcFor is the GOGC that lets a heap of live bytes grow by at least
// headroom: at least 100 (Go's default), at most 100,000. A live heap under
// 4 MB counts as 4 MB: the runtime's least heap goal is 4 MB x GOGC/100, so
// that the goal is then the headroom, not more.
func gogcFor(live, headroom int64) int {
	live = max(live, 4<<20)
	pct := 100 * max(live, headroom) / live
	return int(min(max(pct, 100), 100_000))
}

// applyGCPolicy applies p to the runtime and returns the function that
// restores what was there before (svc serve runs in tests, in process).
func applyGCPolicy(p gcPolicy) (restore func()) {
	prevLimit := debug.SetMemoryLimit(-1)
	if p.MemoryLimit != 0 {
		debug.SetMemoryLimit(p.MemoryLimit)
	}
	var t *gcTuner
	if p.Headroom > 0 {
		t = &gcTuner{headroom: p.Headroom}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		prevGOGC := debug.SetGCPercent(gogcFor(int64(ms.HeapAlloc), p.Headroom))
		t.arm()
		return func() {
			t.mu.Lock()
			t.stopped.Store(true)
			debug.SetGCPercent(prevGOGC)
			t.mu.Unlock()
			debug.SetMemoryLimit(prevLimit)
		}
	}
	return func() { debug.SetMemoryLimit(prevLimit) }
}

// describe words the policy for the start-up log.
func (p gcPolicy) describe() []any {
	limit := debug.SetMemoryLimit(-1)
	out := []any{"memory_limit", sizeText(limit), "memory_limit_from", p.LimitFrom}
	if p.GOGCFrom != "" {
		return append(out, "gogc", "from GOGC")
	}
	if p.Headroom == 0 {
		return append(out, "gc_headroom", "off")
	}
	return append(out, "gc_headroom", sizeText(p.Headroom))
}

func sizeText(n int64) string {
	if n == math.MaxInt64 {
		return "none"
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

// cgroupMemoryLimit returns the memory limit of the process's cgroup (v2
// memory.max, or v1 memory.limit_in_bytes) in bytes; 0 when there is none
// or it cannot be read (not Linux).
func cgroupMemoryLimit() int64 {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	var v2, v1 string
	for line := range strings.Lines(string(cg)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		switch {
		case len(parts) != 3:
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case strings.Contains(","+parts[1]+",", ",memory,"):
			v1 = parts[2]
		}
	}
	read := func(path string) int64 {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // "max", or v1's "no limit"
			return 0
		}
		return n
	}
	if v2 != "" {
		// The limit of the nearest ancestor that has one.
		for dir := v2; ; dir = dir[:strings.LastIndex(dir, "/")] {
			if n := read("/sys/fs/cgroup" + strings.TrimSuffix(dir, "/") + "/memory.max"); n > 0 {
				return n
			}
			if dir == "" || dir == "/" || !strings.Contains(dir, "/") {
				break
			}
		}
	}
	if v1 != "" {
		if n := read("/sys/fs/cgroup/memory" + v1 + "/memory.limit_in_bytes"); n > 0 {
			return n
		}
		return read("/sys/fs/cgroup/memory/memory.limit_in_bytes")
	}
	return 0
}

// machineMemory returns MemTotal of /proc/meminfo in bytes; 0 when it
// cannot be read (not Linux).
func machineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
