package metrics

import (
	"fmt"
	"io"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// processStart is when the process started, for process_start_time_seconds.
var processStart = time.Now()

// runtimeSamples are the Go runtime metrics exported, with their
// Prometheus names (the names client_golang's Go collector uses).
var runtimeSamples = []struct {
	name, help, typ, metric string
}{
	{"go_goroutines", "Number of goroutines that currently exist.", "gauge", "/sched/goroutines:goroutines"},
	{"go_memstats_heap_alloc_bytes", "Bytes of allocated heap objects.", "gauge", "/memory/classes/heap/objects:bytes"},
	{"go_memstats_sys_bytes", "Bytes of memory obtained from the OS.", "gauge", "/memory/classes/total:bytes"},
	{"go_gc_cycles_total", "Completed GC cycles.", "counter", "/gc/cycles/total:gc-cycles"},
	{"go_memstats_alloc_bytes_total", "Total bytes allocated on the heap.", "counter", "/gc/heap/allocs:bytes"},
	{"go_gc_gogc_percent", "Heap size target percentage (GOGC).", "gauge", "/gc/gogc:percent"},
	{"go_gc_gomemlimit_bytes", "Go runtime memory limit (GOMEMLIMIT, svc serve --memory-limit).", "gauge", "/gc/gomemlimit:bytes"},
	{"go_gc_heap_goal_bytes", "Heap size target for the end of the GC cycle.", "gauge", "/gc/heap/goal:bytes"},
	{"go_sched_gomaxprocs_threads", "GOMAXPROCS.", "gauge", "/sched/gomaxprocs:threads"},
}

// WriteRuntime renders the Go runtime and process metrics Prometheus users
// expect (go_*, process_*), read from runtime/metrics and, on Linux,
// /proc/self.
func WriteRuntime(w io.Writer) {
	samples := make([]rtmetrics.Sample, len(runtimeSamples))
	for i, s := range runtimeSamples {
		samples[i].Name = s.metric
	}
	rtmetrics.Read(samples)
	for i, s := range runtimeSamples {
		var v float64
		switch samples[i].Value.Kind() {
		case rtmetrics.KindUint64:
			v = float64(samples[i].Value.Uint64())
		case rtmetrics.KindFloat64:
			v = samples[i].Value.Float64()
		default:
			continue // not in this Go version
		}
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %g\n", s.name, s.help, s.name, s.typ, s.name, v)
	}
	fmt.Fprintf(w, "# HELP go_info Information about the Go environment.\n# TYPE go_info gauge\ngo_info{version=%q} 1\n", runtime.Version())
	fmt.Fprintf(w, "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"+
		"# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %d\n", processStart.Unix())
	writeProcMetrics(w)
}

// writeProcMetrics adds CPU time, memory and file descriptors from
// /proc/self where the system has it (Linux); elsewhere it writes nothing.
func writeProcMetrics(w io.Writer) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	// Fields after the command (which may hold spaces) start at ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 22 {
		return
	}
	const ticks = 100 // USER_HZ on every Linux platform Go supports
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	vsize, _ := strconv.ParseFloat(f[20], 64)
	rss, _ := strconv.ParseFloat(f[21], 64)
	fmt.Fprintf(w, "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"+
		"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %g\n", (utime+stime)/ticks)
	fmt.Fprintf(w, "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"+
		"# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %g\n", vsize)
	fmt.Fprintf(w, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"+
		"# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %g\n", rss*float64(os.Getpagesize()))
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		fmt.Fprintf(w, "# HELP process_open_fds Number of open file descriptors.\n# TYPE process_open_fds gauge\nprocess_open_fds %d\n", len(fds))
	}
	if lim, err := os.ReadFile("/proc/self/limits"); err == nil {
		for _, l := range strings.Split(string(lim), "\n") {
			if strings.HasPrefix(l, "Max open files") {
				if g := strings.Fields(l); len(g) >= 4 {
					if n, err := strconv.ParseFloat(g[3], 64); err == nil {
						fmt.Fprintf(w, "# HELP process_max_fds Maximum number of open file descriptors.\n"+
							"# TYPE process_max_fds gauge\nprocess_max_fds %g\n", n)
					}
				}
			}
		}
	}
}
