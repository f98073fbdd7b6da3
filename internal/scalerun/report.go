package scalerun

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svc-geodata/svc/internal/scalegen"
)

// Target is what the extrapolation scales to.
type Target struct {
	Name      string
	Buildings float64 // LoD2 buildings
	KM2       float64 // DGM1/CDSM km tiles
	OSMBytes  float64 // size of the OSM extract (PBF)
}

// The extrapolation targets (issue 24): NRW about 11 M buildings on
// 34,000 km² with a 700 MB OSM extract; Germany about 56 M buildings on
// 357,600 km² with Geofabrik's 4.4 GB extract.
var (
	NRW     = Target{"NRW", 11e6, 34000, 700e6}
	Germany = Target{"all 16 states", 56e6, 357600, 4.4e9}
)

// basis says what a stage scales with: buildings, km² or OSM bytes.
func basis(name string) string {
	switch name {
	case "import lod2", "build tileset", "build solar":
		return "buildings"
	case "import osm":
		return "OSM bytes"
	}
	return "km²"
}

// factor is how many times the target holds the run's input of a stage.
func factor(st Stage, m *scalegen.Manifest, t Target) float64 {
	switch basis(st.Name) {
	case "buildings":
		if st.Name == "build solar" {
			// It may have computed a sample of the buildings (SolarKM2).
			return t.Buildings / float64(max(st.Items, 1))
		}
		return t.Buildings / float64(m.LoD2.Buildings)
	case "OSM bytes":
		return t.OSMBytes / float64(m.OSM.Bytes)
	}
	return t.KM2 / float64(m.AreaKM2)
}

// Write writes scale-<SCALE>.json and .md into dir; the markdown also
// draws the peak RSS of each stage over every scale-*.json in dir.
func Write(dir string, r *Result, m *scalegen.Manifest) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := fmt.Sprintf("scale-%g", r.Scale)
	type file struct {
		*Result
		Input *inputInfo `json:"input"`
	}
	in := newInput(m)
	b, err := json.MarshalIndent(file{r, in}, "", " ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	var sb strings.Builder
	Markdown(&sb, r, m, others(dir))
	md := filepath.Join(dir, name+".md")
	return md, os.WriteFile(md, []byte(sb.String()), 0o644)
}

// inputInfo is the manifest without the tile list.
type inputInfo struct {
	Buildings, LoD2Files, DGMTiles, CDSMTiles int
	LoD2Bytes, DGMBytes, CDSMBytes, OSMBytes  int64
	OSMFormat                                 string
	OSMCopies, OSMObjects                     int
	PixelM, CanopyShare                       float64
}

func newInput(m *scalegen.Manifest) *inputInfo {
	return &inputInfo{m.LoD2.Buildings, m.LoD2.Files, m.DGM.Tiles, m.CDSM.Tiles, m.LoD2.Bytes, m.DGM.Bytes, m.CDSM.Bytes,
		m.OSM.Bytes, m.OSM.Format, m.OSM.Copies, m.OSM.Nodes + m.OSM.Ways + m.OSM.Relations, m.DGM.PixelM, m.CDSM.Valid}
}

// runFile is what others reads back of an earlier run.
type runFile struct {
	Scale   float64 `json:"scale"`
	AreaKM2 int     `json:"area_km2"`
	Stages  []Stage `json:"stages"`
	Serve   Serve   `json:"serve"`
	TotalS  float64 `json:"total_s"`
	Input   struct {
		PixelM float64
	} `json:"input"`
}

func others(dir string) []runFile {
	paths, _ := filepath.Glob(filepath.Join(dir, "scale-*.json"))
	var out []runFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var f runFile
		if json.Unmarshal(b, &f) == nil && f.Input.PixelM == 1 {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b runFile) int { return a.AreaKM2 - b.AreaKM2 })
	return out
}

func mb(b int64) float64  { return float64(b) / 1e6 }
func mib(b int64) float64 { return float64(b) / (1 << 20) }

// Markdown writes the run's tables and the extrapolation.
func Markdown(w io.Writer, r *Result, m *scalegen.Manifest, runs []runFile) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# make bench-scale: SCALE=%g (%d km² of %s)\n\n", r.Scale, r.AreaKM2, strings.ToUpper(m.BL))
	p("- machine: %s; load average %s before, %s after (other work shares the machine)\n", r.Machine, r.Load, r.LoadEnd)
	p("- svc: %s; started %s; --workers %s\n", r.Commit, r.Started, workersText(r.Workers))
	p("- generated in %.1f s (seed %d, %g m raster pixels); pipeline and serve %.1f s; total %.1f s\n\n", m.Seconds, m.Seed, m.DGM.PixelM, r.TotalS-m.Seconds, r.TotalS)
	p("## Input (synthetic state from real shapes)\n\n| data | files | items | MB |\n|---|---:|---:|---:|\n")
	p("| LoD2 CityGML (real NRW tile %s replicated) | %d | %d buildings, %d parts | %.1f |\n", m.Template, m.LoD2.Files, m.LoD2.Buildings, m.LoD2.Parts, mb(m.LoD2.Bytes))
	p("| DGM1 GeoTIFF (fractal relief) | %d | %d km² | %.1f |\n", m.DGM.Tiles, m.DGM.Tiles, mb(m.DGM.Bytes))
	p("| CDSM GeoTIFF (forest patches, %.0f %% vegetated) | %d | %d km² | %.1f |\n", 100*m.CDSM.Valid, m.CDSM.Tiles, m.CDSM.Tiles, mb(m.CDSM.Bytes))
	p("| OSM %s (%d shifted copies of %s) | 1 | %d nodes, %d ways, %d relations | %.1f |\n\n", m.OSM.Format, m.OSM.Copies, m.OSM.Sample, m.OSM.Nodes, m.OSM.Ways, m.OSM.Relations, mb(m.OSM.Bytes))
	p("## Stages\n\nMB/s: source files for imports, bytes written for builds. Cores: CPU time / wall. Peak RSS: %s; of it anon / file: the largest anonymous (heap, stacks: what the stage holds) and file-backed (mmapped packs and binary: pages the kernel may drop) resident memory, sampled every 50 ms from /proc/PID/status. Disk: growth of the data directory.\n\n", r.RSSBy)
	p("| stage | items | items/s | MB/s | cores | wall s | CPU s | peak RSS MiB | anon / file MiB | disk MB | reported |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Stages {
		p("| %s | %d %s | %.1f | %.2f | %.2f | %.1f | %.1f | %.0f | %s | %.1f | %s |\n", s.Name, s.Items, s.Unit, s.ItemsPerS(), s.MBPerS(), s.Cores(), s.WallS, s.CPUS, mib(s.PeakRSS), anonFile(s), mb(s.OutBytes), strings.ReplaceAll(s.Summary, "|", "/"))
	}
	sv := r.Serve
	p("\n## Serve\n\n- cold start (process start to the first answered bbox search): %.2f s\n", sv.ColdStartS)
	p("- /v1/datasets building_count %d (generated %d); search of tile %s: %d surfaces on the first page, %d of that tile's buildings\n", sv.DatasetBuildings, m.LoD2.Buildings, scalegen.TileCode(sv.ProbeTile), sv.ProbeFeatures, sv.ProbeOwn)
	p("- bbox search, a random generated km² each, limit 100, %d clients for %.0f s (Go client on the same cores): %.0f req/s, p50 %.2f ms, p99 %.2f ms (p99/p50 %.1f), max %.1f ms, %d requests, %d not 200; server RSS %.0f MiB, peak %.0f MiB\n\n",
		sv.Conns, sv.DurationS, sv.ReqPerS, sv.P50Ms, sv.P99Ms, sv.P99Ms/max(sv.P50Ms, 1e-9), sv.MaxMs, sv.Requests, sv.Non200, mib(sv.RSS), mib(sv.PeakRSS))
	addrMarkdown(w, sv.Addresses, m.Addresses)
	p("\n## 3D Tiles products\n\n| product | root tileset.json bytes | content files |\n|---|---:|---:|\n")
	for _, t := range r.Tilesets {
		p("| %s | %d | %d |\n", t.Product, t.Bytes, t.Tiles)
	}
	judgeMarkdown(w, r.Judge)
	p("\n## Disk by directory\n\n| dir | MB |\n|---|---:|\n")
	keys := make([]string, 0, len(r.DiskByDir))
	for k := range r.DiskByDir {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p("| %s | %.1f |\n", k, mb(r.DiskByDir[k]))
	}
	solarMarkdown(w, r, m)
	extrapolate(w, r, m)
	rssCurve(w, runs)
}

// solarMarkdown writes the figures of the build solar stage: buildings
// (roofs) and facets per second, per core (per CPU second), and the
// totals for one state and all 16 at the cores it used.
func solarMarkdown(w io.Writer, r *Result, m *scalegen.Manifest) {
	i := slices.IndexFunc(r.Stages, func(s Stage) bool { return s.Name == "build solar" })
	if i < 0 {
		return
	}
	s := r.Stages[i]
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	perCore := float64(s.Items) / max(s.CPUS, 1e-9)
	p("\n## Solar build\n\n`svc build solar` computed %d of the %d buildings (%d roof facets; terrain and building shading, trees where the CDSM has crowns) with `%s`:\n\n",
		s.Items, m.LoD2.Buildings, s.Facets, strings.TrimPrefix(s.Args, "build solar "))
	p("| roofs/s | roofs/s per core (per CPU s) | facets/s | cores | CPU ms per roof | peak RSS MiB | disk KB per roof | %s wall h | %s CPU h | %s wall h | %s CPU h |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		NRW.Name, NRW.Name, Germany.Name, Germany.Name)
	fn, fd := factor(s, m, NRW), factor(s, m, Germany)
	p("| %.2f | %.2f | %.1f | %.2f | %.0f | %.0f | %.2f | %.1f | %.0f | %.0f | %.0f |\n\n",
		s.ItemsPerS(), perCore, float64(s.Facets)/max(s.WallS, 1e-9), s.Cores(), 1000/max(perCore, 1e-9), mib(s.PeakRSS),
		float64(s.OutBytes)/1e3/float64(max(s.Items, 1)), s.WallS*fn/3600, s.CPUS*fn/3600, s.WallS*fd/3600, s.CPUS*fd/3600)
	p("A roof is a building; the totals scale the CPU time per building to %.0f M (%s) and %.0f M buildings (%s): divide the CPU hours by the cores a machine gives the build (its parallel efficiency is in docs/performance.md).\n",
		NRW.Buildings/1e6, NRW.Name, Germany.Buildings/1e6, Germany.Name)
}

func workersText(n int) string {
	if n == 0 {
		return "not passed (each command's default)"
	}
	return fmt.Sprint(n)
}

func extrapolate(w io.Writer, r *Result, m *scalegen.Manifest) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\n## Extrapolation\n\nEach stage scaled linearly from this run by what it grows with (buildings, km² or OSM bytes), on this machine at the cores it used here. CPU h is machine-independent up to clock speed: divide by the cores a machine gives the stage.\n\n")
	p("| stage | grows with | %s wall h | %s CPU h | %s disk GB | %s wall h | %s CPU h | %s disk GB |\n|---|---|---:|---:|---:|---:|---:|---:|\n", NRW.Name, NRW.Name, NRW.Name, Germany.Name, Germany.Name, Germany.Name)
	var tot [6]float64
	for _, s := range r.Stages {
		fn, fd := factor(s, m, NRW), factor(s, m, Germany)
		v := [6]float64{s.WallS * fn / 3600, s.CPUS * fn / 3600, float64(s.OutBytes) * fn / 1e9, s.WallS * fd / 3600, s.CPUS * fd / 3600, float64(s.OutBytes) * fd / 1e9}
		for i := range v {
			tot[i] += v[i]
		}
		p("| %s | %s | %.2f | %.2f | %.1f | %.1f | %.1f | %.0f |\n", s.Name, basis(s.Name), v[0], v[1], v[2], v[3], v[4], v[5])
	}
	p("| **all stages** | | **%.1f** | **%.1f** | **%.0f** | **%.0f** | **%.0f** | **%.0f** |\n\n", tot[0], tot[1], tot[2], tot[3], tot[4], tot[5])
	p("Assumptions: %s holds %.0f M buildings on %.0f km² (one DGM1/CDSM tile per km²) and a %.0f MB OSM extract; %s %.0f M buildings on %.0f km² and a %.1f GB extract. ",
		NRW.Name, NRW.Buildings/1e6, NRW.KM2, NRW.OSMBytes/1e6, Germany.Name, Germany.Buildings/1e6, Germany.KM2, Germany.OSMBytes/1e9)
	p("The synthetic km² holds %d buildings (the real NRW tile), NRW averages %.0f: LoD2 stages are scaled by buildings, not km². ", m.LoD2.Buildings/max(1, m.LoD2.Files), NRW.Buildings/NRW.KM2)
	p("The synthetic OSM holds %.0f KB/km², the real NRW extract about %.0f KB/km²: the OSM import is scaled by bytes; osm-cover by km². ", float64(m.OSM.Bytes)/1e3/float64(m.AreaKM2), NRW.OSMBytes/1e3/NRW.KM2)
	p("CDSM for the whole area (%.0f %% vegetated here). Linear scaling holds while nothing is held in memory per item (see the RSS curve) and the data fits the disk; the rasters are %g m pixels.\n", 100*m.CDSM.Valid, m.DGM.PixelM)
}

// rssCurve tabulates the peak RSS of every stage over the runs (1 m
// rasters only) and fits a line through the two largest.
func rssCurve(w io.Writer, runs []runFile) {
	if len(runs) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\n## Peak RSS over SCALE (MiB, in parentheses its anonymous part where sampled; every run in this directory with 1 m rasters)\n\n| stage |")
	for _, r := range runs {
		p(" %g (%d km²) |", r.Scale, r.AreaKM2)
	}
	if len(runs) >= 2 {
		p(" MiB per 1,000 km² (two largest) | NRW by that line |")
	}
	p("\n|---|")
	for range runs {
		p("---:|")
	}
	if len(runs) >= 2 {
		p("---:|---:|")
	}
	p("\n")
	names := []string{}
	for _, s := range runs[len(runs)-1].Stages {
		names = append(names, s.Name)
	}
	names = append(names, "serve (after load)")
	for _, n := range names {
		p("| %s |", n)
		var pts, anon [][2]float64
		for _, r := range runs {
			v, a := int64(-1), int64(0)
			if n == "serve (after load)" {
				v = r.Serve.PeakRSS
			}
			for _, s := range r.Stages {
				if s.Name == n {
					v, a = s.PeakRSS, s.PeakAnon
				}
			}
			if v < 0 {
				p(" |")
				continue
			}
			pts = append(pts, [2]float64{float64(r.AreaKM2), mib(v)})
			if a > 0 {
				anon = append(anon, [2]float64{float64(r.AreaKM2), mib(a)})
				p(" %.0f (%.0f) |", mib(v), mib(a))
			} else {
				p(" %.0f |", mib(v))
			}
		}
		if len(runs) >= 2 && len(pts) >= 2 {
			p(" %s | %s |", lineOf(pts, anon, 1000, false), lineOf(pts, anon, NRW.KM2, true))
		}
		p("\n")
	}
}

// lineOf fits a line through the two largest points of pts (and of anon,
// in parentheses, when it has two) and returns its slope per x, or its
// value at x when at is set.
func lineOf(pts, anon [][2]float64, x float64, at bool) string {
	f := func(pts [][2]float64) float64 {
		a, b := pts[len(pts)-2], pts[len(pts)-1]
		slope := (b[1] - a[1]) / math.Max(b[0]-a[0], 1)
		if at {
			return b[1] + slope*(x-b[0])
		}
		return slope * x
	}
	format := "%.1f"
	if at {
		format = "%.0f"
	}
	out := fmt.Sprintf(format, f(pts))
	if len(anon) >= 2 {
		out += fmt.Sprintf(" ("+format+")", f(anon))
	}
	return out
}

// anonFile is a stage's peak anonymous / file-backed RSS in MiB, blank
// when not sampled.
func anonFile(s Stage) string {
	if s.PeakAnon == 0 && s.PeakFile == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f / %.0f", mib(s.PeakAnon), mib(s.PeakFile))
}

// addrMarkdown writes the address lookup's rows.
func addrMarkdown(w io.Writer, a AddrLoad, in scalegen.AddressStats) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	if a.Queries == 0 {
		p("- address lookup: not measured (the manifest holds no address sample)\n")
		return
	}
	p("- address lookup (GET /v1/addresses, limit 10) over %d generated addresses (%d streets, %d localities, %d postcodes) in %d buildings: %d queries, %d of each kind (%s) from a sample of the generated addresses; first lookup (builds the street index) %.1f ms\n\n",
		in.Count, in.Streets, in.Localities, in.PostCodes, in.Buildings, a.Queries, a.Queries/len(scalegen.AddrKinds), strings.Join(scalegen.AddrKinds, ", "), a.FirstMs)
	p("| address lookup | clients | requests | req/s | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range []struct {
		name string
		l    Latency
	}{{"warm, one client", a.Serial}, {"concurrent", a.Concurrent}} {
		p("| %s | %d | %d | %.0f | %.2f | %.2f | %.1f |\n", l.name, l.l.Conns, l.l.Requests, l.l.ReqPerS, l.l.P50Ms, l.l.P99Ms, l.l.MaxMs)
	}
	p("\n| query kind | p50 ms (one client) | best match the generated building |\n|---|---:|---:|\n")
	for _, k := range scalegen.AddrKinds {
		p("| %s | %.2f | %d / %d |\n", k, a.P50ByKind[k], a.Found[k], a.Sent[k])
	}
	for _, k := range []string{"common exact", "common city"} {
		if a.Sent[k] > 0 {
			p("| %s (p99 %.2f ms) | %.2f | %d / %d |\n", k, a.P99ByKind[k], a.P50ByKind[k], a.Found[k], a.Sent[k])
		}
	}
	p("\nCommon: %d addresses on the street names most municipalities have (Hauptstraße, Schulstraße, ...), the most common key holding %d addresses; each sent 5 times, apart from the loads above.\n", a.Sent["common exact"], a.CommonKeyAddresses)
	p("\nAnswered points within %.1f m of the generated buildings' centres; %d answers not 200.\n", a.MaxPointM, a.Non200)
}
