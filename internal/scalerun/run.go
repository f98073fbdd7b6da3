// Package scalerun runs the whole svc pipeline on a synthetic state
// (internal/scalegen) through the built binary's CLI and measures every
// stage: items/s and MB/s, cores used (CPU time / wall), wall time, peak
// RSS, bytes on disk; then serves the result and measures the cold start,
// the bbox search latency and each 3D Tiles product's root tileset. It
// writes the table and the extrapolation to a whole state and to all 16
// (report.go). make bench-scale drives it; docs/performance.md explains it.
package scalerun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/scalegen"
)

// Options says what to run.
type Options struct {
	SVC      string // the built svc binary
	Data     string // data directory (created; should be empty)
	Manifest *scalegen.Manifest
	// Workers is passed as --workers to every command that has the flag;
	// 0 passes nothing (the command's default).
	Workers  int
	Snapshot string        // YYYY-MM-DD of the imports
	Load     time.Duration // bbox search load per measurement (default 10 s)
	Conns    int           // concurrent search clients (default 32)
	Log      io.Writer     // progress; nil discards
	// Judges are the tools that judge the 3D Tiles output (FindJudges);
	// the zero value skips both, saying so in the table.
	Judges Judges
	// Irradiance is the climate file of the build solar stage (a PVGIS
	// TMY); "" leaves the stage out.
	Irradiance string
	// SolarKM2 is the area of generated km² tiles build solar computes (its
	// --bbox; at ~0.1 CPU s a building a whole state takes hours): whole
	// tiles, or below 1 the square of that area in one tile's south-east
	// corner, where the template's buildings are (0.01: 29 of its 109,
	// 0.02: 67); 0 all. Its figures are scaled by the buildings computed.
	SolarKM2 float64
}

// Stage is one measured command.
type Stage struct {
	Name     string  `json:"name"`
	Args     string  `json:"args"`
	Items    int     `json:"items"`
	Unit     string  `json:"unit"`
	InBytes  int64   `json:"in_bytes"`  // imports: size of the source files
	OutBytes int64   `json:"out_bytes"` // growth of the data directory
	WallS    float64 `json:"wall_s"`
	CPUS     float64 `json:"cpu_s"`
	PeakRSS  int64   `json:"peak_rss_bytes"`
	// PeakAnon and PeakFile are the largest anonymous (heap, stacks) and
	// file-backed (mmapped packs, the binary) resident memory of the svc
	// process, sampled every 50 ms from /proc/PID/status (Linux; 0
	// elsewhere). Anonymous memory is what a stage holds; file-backed pages
	// are the kernel's to drop.
	PeakAnon int64 `json:"peak_rss_anon_bytes,omitempty"`
	PeakFile int64 `json:"peak_rss_file_bytes,omitempty"`
	// Reported is the count the command printed (buildings, tiles,
	// features), -1 when it printed none.
	Reported int    `json:"reported"`
	Summary  string `json:"summary"`
	// Facets is the roof facets build solar reported (0 other stages).
	Facets int `json:"facets,omitempty"`
}

// Cores is the CPU time over the wall time.
func (s Stage) Cores() float64 { return s.CPUS / max(s.WallS, 1e-9) }

// ItemsPerS is the items over the wall time.
func (s Stage) ItemsPerS() float64 { return float64(s.Items) / max(s.WallS, 1e-9) }

// MBPerS is the source bytes (imports) or the written bytes (builds) over
// the wall time, in MB (10^6 bytes) per second.
func (s Stage) MBPerS() float64 {
	b := s.InBytes
	if b == 0 {
		b = s.OutBytes
	}
	return float64(b) / 1e6 / max(s.WallS, 1e-9)
}

// Result is one run of the pipeline.
type Result struct {
	Scale     float64          `json:"scale"`
	AreaKM2   int              `json:"area_km2"`
	Machine   string           `json:"machine"`
	Load      string           `json:"load_before"`
	LoadEnd   string           `json:"load_after"`
	Commit    string           `json:"svc_version"`
	Workers   int              `json:"workers"`
	GenS      float64          `json:"generate_s"`
	Stages    []Stage          `json:"stages"`
	Serve     Serve            `json:"serve"`
	Tilesets  []TSInfo         `json:"tilesets"`
	Judge     JudgeReport      `json:"judges"`
	DiskByDir map[string]int64 `json:"disk_bytes_by_dir"`
	TotalS    float64          `json:"total_s"`
	// RSSBy says how the peak RSS was measured: GNU time, or wait4 (an
	// upper bound: at least the runner's own RSS).
	RSSBy   string `json:"peak_rss_by"`
	Started string `json:"started"`
}

// Run runs the pipeline and returns its measurements. It stops at the first
// command that fails, returning what was measured so far with the error.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Snapshot == "" {
		o.Snapshot = "2026-01-01"
	}
	m := o.Manifest
	r := &Result{Scale: m.Scale, AreaKM2: m.AreaKM2, Machine: machine(), Load: loadavg(), Workers: o.Workers,
		GenS: m.Seconds, Started: start.UTC().Format(time.RFC3339), RSSBy: "GNU time (%M)"}
	if gnuTime == "" {
		r.RSSBy = "wait4 rusage (an upper bound: Linux counts the runner's own RSS at the fork; apt-get install time)"
	}
	if v, err := exec.Command(o.SVC, "version").Output(); err == nil {
		r.Commit = strings.TrimSpace(strings.SplitN(string(v), "\n", 2)[0])
	}
	if err := os.MkdirAll(o.Data, 0o755); err != nil {
		return r, fmt.Errorf("scalerun: %w", err)
	}
	if o.Irradiance != "" {
		// A sample of one day a month is made a year (FullYearTMY).
		full := filepath.Join(filepath.Dir(o.Data), "full-year-"+filepath.Base(o.Irradiance))
		switch err := FullYearTMY(o.Irradiance, full); {
		case err == nil:
			o.Irradiance = full
		case !errors.Is(err, ErrNotDaily):
			return r, err
		}
	}
	for _, s := range plan(o) {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		args := s.args
		if o.Workers > 0 && hasFlag(o.SVC, args[:2], "--workers") {
			args = append(args, "--workers", strconv.Itoa(o.Workers))
		}
		st, out, err := runStage(ctx, o, s.name, args)
		st.Unit, st.Items, st.InBytes = s.unit, s.items, s.in
		st.Facets = facetCount(st.Summary)
		if s.count != nil {
			// The summary line first, then the other lines but the
			// progress lines (", ETA "), which carry running counts in
			// the same words.
			src := st.Summary
			if !s.count.MatchString(src) {
				var keep []string
				for _, l := range strings.Split(out, "\n") {
					if !strings.Contains(l, ", ETA ") {
						keep = append(keep, l)
					}
				}
				src = strings.Join(keep, "\n")
			}
			if mm := s.count.FindStringSubmatch(src); mm != nil {
				st.Reported, _ = strconv.Atoi(mm[1])
			}
		}
		if s.items < 0 {
			st.Items = max(st.Reported, 0) // a sample: the count it reported
		}
		r.Stages = append(r.Stages, st)
		fmt.Fprintf(o.Log, "%-20s %8.1f s wall %6.2f cores %7.0f MiB peak  %s\n", s.name, st.WallS, st.Cores(), float64(st.PeakRSS)/(1<<20), st.Summary)
		if err != nil {
			return r, err
		}
	}
	r.Tilesets = tilesets(o.Data)
	r.DiskByDir = diskByDir(o.Data)
	j := o.Judges
	r.Judge.SkipValidator, r.Judge.SkipCesium = j.SkipValidator, j.SkipCesium
	if j.Validator == "" && j.SkipValidator == "" {
		r.Judge.SkipValidator = "not asked for"
	}
	if j.Chromium == "" && j.SkipCesium == "" {
		r.Judge.SkipCesium = "not asked for"
	}
	// A judge that fails to run is recorded in the table, not fatal: the
	// run's measurements (maybe an hour's) are written all the same.
	if err := validate(ctx, j, o.Data, r.Tilesets, &r.Judge); err != nil {
		r.Judge.ValidatorFailed = err.Error()
	}
	logJudge(o.Log, r.Judge, false)
	sv, err := serve(ctx, o, func(base string) error {
		if err := view(ctx, j, o.Log, base, o.Data, m, r.Tilesets, &r.Judge); err != nil {
			r.Judge.CesiumFailed = err.Error()
		}
		return nil
	})
	r.Serve = sv
	if err == nil {
		logJudge(o.Log, r.Judge, true)
	}
	r.LoadEnd = loadavg()
	r.TotalS = time.Since(start).Seconds() + m.Seconds
	return r, err
}

// step is one command of the pipeline.
type step struct {
	name, unit string
	args       []string
	items      int
	in         int64
	count      *regexp.Regexp // what the command reports, matched against items
}

// plan lists the pipeline's commands in order: the DGM before vegetation
// and OSM (both stand on it), the imports before the builds.
func plan(o Options) []step {
	m := o.Manifest
	common := []string{"--data", o.Data, "--bl", m.BL}
	imp := append([]string{"--snapshot", o.Snapshot}, common...)
	lic := []string{"--license", "dl-de-zero-2.0"}
	steps := []step{
		{"import lod2", "buildings", cat([]string{"import", "lod2"}, imp, lic, []string{m.LoD2.Dir}), m.LoD2.Buildings, m.LoD2.Bytes, reCount(`(\d+) buildings`)},
		{"import dgm", "tiles", cat([]string{"import", "dgm"}, imp, lic, []string{m.DGM.Dir}), m.DGM.Tiles, m.DGM.Bytes, reCount(`(\d+) tiles`)},
		{"import vegetation", "tiles", cat([]string{"import", "vegetation"}, imp, lic, []string{"--cdsm", m.CDSM.Dir}), m.CDSM.Tiles, m.CDSM.Bytes, nil},
		{"import osm", "objects", cat([]string{"import", "osm"}, imp, []string{m.OSM.Path}), m.OSM.Nodes + m.OSM.Ways + m.OSM.Relations, m.OSM.Bytes, nil},
		{"build tileset", "buildings", cat([]string{"build", "tileset"}, common), m.LoD2.Buildings, 0, reCount(`(\d+) buildings`)},
		{"build terrain-mesh", "tiles", cat([]string{"build", "terrain-mesh"}, common), m.DGM.Tiles, 0, reCount(`(\d+) tiles`)},
		{"build vegetation", "tiles", cat([]string{"build", "vegetation"}, common), m.CDSM.Tiles, 0, reCount(`cdsm: (\d+) tiles`)},
		{"build osm-cover", "tiles", cat([]string{"build", "osm-cover"}, common), m.DGM.Tiles, 0, reCount(`surface (\d+) tiles`)},
	}
	if o.Irradiance != "" {
		args := cat([]string{"build", "solar"}, common, []string{"--irradiance", o.Irradiance})
		items := m.LoD2.Buildings
		if o.SolarKM2 > 0 && len(m.Tiles) > 0 {
			args, items = append(args, "--bbox", solarBBox(m.Tiles, o.SolarKM2)), -1
		}
		steps = append(steps, step{"build solar", "buildings", args, items, 0, reCount(`: (\d+) buildings`)})
	}
	return steps
}

// solarBBox is the WGS84 box around km2 generated km² tiles from the
// middle of the list (the probe tile first); below 1 km², the square of
// that area in the middle tile's south-east corner.
func solarBBox(tiles []scalegen.Tile, km2 float64) string {
	mid := len(tiles) / 2
	n := max(1, int(math.Round(km2)))
	sel := tiles[mid:min(mid+n, len(tiles))]
	minE, minN, maxE, maxN := sel[0].EKM, sel[0].NKM, sel[0].EKM, sel[0].NKM
	for _, t := range sel {
		minE, minN, maxE, maxN = min(minE, t.EKM), min(minN, t.NKM), max(maxE, t.EKM), max(maxN, t.NKM)
	}
	e0, n0, e1, n1 := float64(minE)*1000, float64(minN)*1000, float64(maxE+1)*1000, float64(maxN+1)*1000
	if km2 < 1 {
		// The template tile's buildings lie in its south-east corner.
		e0, n1 = e1-math.Sqrt(km2)*1000, n0+math.Sqrt(km2)*1000
	}
	lon0, lat0 := geo.FromUTM(geo.Zone32, e0, n0)
	lon1, lat1 := geo.FromUTM(geo.Zone32, e1, n1)
	return fmt.Sprintf("%.6f,%.6f,%.6f,%.6f", min(lon0, lon1), min(lat0, lat1), max(lon0, lon1), max(lat0, lat1))
}

// facetCount is the "N roof facets" a build solar summary reports; 0 for
// other stages.
func facetCount(summary string) int {
	if mm := reFacets.FindStringSubmatch(summary); mm != nil {
		n, _ := strconv.Atoi(mm[1])
		return n
	}
	return 0
}

var reFacets = regexp.MustCompile(`(\d+) roof facets`)

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func reCount(expr string) *regexp.Regexp { return regexp.MustCompile(expr) }

// hasFlag reports whether `svc <cmd> --help` lists flag: the runner passes
// --workers only where it exists, so commands that gain it show it.
func hasFlag(svc string, cmd []string, flag string) bool {
	out, _ := exec.Command(svc, cat(cmd, []string{"--help"})...).CombinedOutput()
	return bytes.Contains(out, []byte(flag+" "))
}

// gnuTime is GNU time (Debian package time) when installed. Its child is
// forked from a small process, so the child's peak RSS is its own; wait4 on
// a child of this (large) process reports at least this process's RSS at
// the fork, because Linux carries the high-water mark across the vfork+exec
// Go uses.
var gnuTime = func() string {
	if out, err := exec.Command("/usr/bin/time", "--version").CombinedOutput(); err == nil && bytes.Contains(out, []byte("GNU")) {
		return "/usr/bin/time"
	}
	return ""
}()

// runStage runs one svc command and measures it: with GNU time when
// installed, else with wait4's rusage (peak RSS then an upper bound).
// It returns the command's output too.
func runStage(ctx context.Context, o Options, name string, args []string) (Stage, string, error) {
	before := diskUsage(o.Data)
	var cmd *exec.Cmd
	var timeFile string
	if gnuTime != "" {
		f, err := os.CreateTemp("", "scalerun-time-")
		if err != nil {
			return Stage{Name: name}, "", fmt.Errorf("scalerun: %w", err)
		}
		f.Close()
		defer os.Remove(f.Name())
		timeFile = f.Name()
		cmd = exec.CommandContext(ctx, gnuTime, cat([]string{"-f", "%U %S %M", "-o", timeFile, o.SVC}, args)...)
	} else {
		cmd = exec.CommandContext(ctx, o.SVC, args...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Start()
	var mp memPeak
	if err == nil {
		stop := watchMem(cmd.Process.Pid, gnuTime != "")
		err = cmd.Wait()
		mp = stop()
	}
	wall := time.Since(t0)
	st := Stage{Name: name, Args: strings.Join(args, " "), WallS: wall.Seconds(), Reported: -1,
		PeakAnon: mp.Anon, PeakFile: mp.File}
	if timeFile != "" {
		b, _ := os.ReadFile(timeFile)
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			u, _ := strconv.ParseFloat(f[len(f)-3], 64)
			s, _ := strconv.ParseFloat(f[len(f)-2], 64)
			kb, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
			st.CPUS, st.PeakRSS = u+s, kb*1024
		}
	} else if cmd.ProcessState != nil {
		cpu, rss := usage(cmd.ProcessState)
		if runtime.GOOS == "darwin" {
			rss /= 1024 // darwin reports bytes
		}
		st.CPUS, st.PeakRSS = cpu.Seconds(), rss
	}
	st.OutBytes = diskUsage(o.Data) - before
	st.Summary = summary(out.String())
	if err != nil {
		return st, out.String(), fmt.Errorf("scalerun: svc %s: %w\n%s", strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	return st, out.String(), nil
}

// summary is the command's "imported ..." or "built ..." line, cut short.
func summary(out string) string {
	var last string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "imported ") || strings.HasPrefix(l, "built ") || strings.Contains(l, ": ") && strings.Contains(l, " tiles") {
			last = strings.TrimSpace(l)
			if strings.HasPrefix(l, "imported ") || strings.HasPrefix(l, "built ") {
				break
			}
		}
	}
	if len(last) > 240 {
		last = last[:240] + "..."
	}
	return last
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// diskUsage is the space the files under dir take on disk (allocated
// blocks; a hard-linked file counts once).
func diskUsage(dir string) int64 {
	var n int64
	seen := map[uint64]bool{}
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		b, ino := fileBlocks(fi)
		if ino != 0 {
			if seen[ino] {
				return nil
			}
			seen[ino] = true
		}
		n += b
		return nil
	})
	return n
}

// diskByDir is the disk usage of each top-level product directory.
func diskByDir(data string) map[string]int64 {
	out := map[string]int64{}
	ents, _ := os.ReadDir(data)
	for _, e := range ents {
		if e.IsDir() {
			out[e.Name()] = diskUsage(filepath.Join(data, e.Name()))
		}
	}
	return out
}

func machine() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%d cores, %s, %s/%s", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
