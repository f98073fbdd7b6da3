package scalerun

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/scalegen"
)

// The judges of a run's 3D Tiles output (issue 24 point 4): the official
// CesiumGS 3D Tiles validator on every product's root tileset (with its
// external tilesets and its content, or a sample of the content at large
// SCALE), and CesiumJS in headless Chromium against the running server:
// the tile requests of a first view of the whole state and of a street
// view, per product. Either is skipped, with the reason in the table, when
// its tool is not found.

//go:embed judgejs/validate.js judgejs/state.html
var judgeFiles embed.FS

// StatePage is the CesiumJS page of the judge (judgejs/state.html): the
// tile requests and picks of a view of the whole state, CesiumJS's zoomTo
// and a street view, for each tileset= of its query. It is the one copy:
// cmd's CesiumJS state tests serve it too.
func StatePage() []byte {
	b, err := judgeFiles.ReadFile("judgejs/state.html")
	if err != nil {
		panic(err) // embedded above
	}
	return b
}

// Request budgets of the CesiumJS judge, those of
// cmd/cesium_state_test.go: fewer than 50 requests for the first view of
// the whole state, at most 200 for a street view.
const (
	StateViewMaxRequests  = 49
	StreetViewMaxRequests = 200
)

// Judges says where the judging tools are. A field left empty skips its
// judge; the Skip fields say why (recorded in the table).
type Judges struct {
	// Validator is the directory of the official 3D Tiles validator
	// (../shared/tools/3d-tiles-validator: its compiled build/ and its
	// installed node_modules/); Node the node binary that runs it.
	Validator, Node string
	// SampleContent is the most content files validated per product: a
	// product with more has its tileset JSON and external tilesets
	// validated whole and this many of its content files, evenly spread
	// (default 300; negative: all).
	SampleContent int
	// Chromium is the browser and CesiumDir the Build/Cesium directory of
	// the cesium npm package.
	Chromium, CesiumDir string
	// Products limits the CesiumJS judge to these products (paths below
	// the data directory, as TSInfo.Product); empty: every product.
	Products []string
	// Views are the CesiumJS views (state, zoomTo, street); empty: all
	// three. Without zoomTo the street view is a fresh tileset seen from
	// the street camera.
	Views []string
	// SkipValidator and SkipCesium say why a judge does not run.
	SkipValidator, SkipCesium string
}

// FindJudges looks for the tools: node and the validator installed in
// shared/tools/3d-tiles-validator, chromium in PATH and CesiumJS in the
// repository's node_modules (root is the module root).
func FindJudges(root, shared string) Judges {
	var j Judges
	node, err := exec.LookPath("node")
	switch {
	case err != nil:
		j.SkipValidator = "node not found (apt-get install nodejs npm)"
	default:
		// Absolute: validate.js runs from a temporary file and requires
		// the validator's modules by this path.
		dir, err := filepath.Abs(filepath.Join(shared, "tools", "3d-tiles-validator"))
		if err != nil {
			j.SkipValidator = err.Error()
			break
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".installed")); err != nil {
			j.SkipValidator = "3d-tiles-validator not installed: run " + filepath.Join(dir, "install")
		} else {
			j.Validator, j.Node = dir, node
		}
	}
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	cesium, _ := filepath.Abs(filepath.Join(root, "node_modules", "cesium", "Build", "Cesium"))
	switch _, err := os.Stat(filepath.Join(cesium, "Cesium.js")); {
	case chromium == "":
		j.SkipCesium = "chromium not found (apt-get install chromium)"
	case err != nil:
		j.SkipCesium = "CesiumJS not installed: run npm ci in " + root
	default:
		j.Chromium, j.CesiumDir = chromium, cesium
	}
	return j
}

// Judgement is what the judges said of one product.
type Judgement struct {
	Product string `json:"product"`
	// The validator: errors and warnings over everything validated, the
	// first issues, how many of the content files were validated.
	Validated         bool     `json:"validated"`
	ContentFiles      int      `json:"content_files"`
	ContentValidated  int      `json:"content_validated"`
	ValidatorErrors   int      `json:"validator_errors"`
	ValidatorWarnings int      `json:"validator_warnings"`
	ValidatorIssues   []string `json:"validator_issues,omitempty"`
	ValidateS         float64  `json:"validate_s"`
	// CesiumJS: the tile requests (tileset JSON and content) of the first
	// view of the whole state (camera set before the tileset loads), of
	// viewer.zoomTo on a fresh instance, and of the move down to a street
	// view over the deepest leaf nearest the state's centre; bytes of the
	// first view; how many of 100 picks over the street view hit the
	// tileset.
	Viewed         bool     `json:"viewed"`
	Cesium         string   `json:"cesium_version,omitempty"`
	StateRequests  int      `json:"state_requests"`
	StateBytes     int64    `json:"state_bytes"`
	StateMS        int      `json:"state_ms"`
	ZoomToRequests int      `json:"zoomto_requests"`
	StreetRequests int      `json:"street_requests"`
	StreetMS       int      `json:"street_ms"`
	StreetHits     int      `json:"street_hits"`
	StreetContent  int      `json:"street_content_ready"`
	CesiumErrors   []string `json:"cesium_errors,omitempty"`
}

// JudgeReport is the judges' part of a Result.
type JudgeReport struct {
	SkipValidator string      `json:"validator_skipped,omitempty"`
	SkipCesium    string      `json:"cesium_skipped,omitempty"`
	Products      []Judgement `json:"products"`
	ValidateS     float64     `json:"validate_s"`
	CesiumS       float64     `json:"cesium_s"`
	// Views are the CesiumJS views taken (empty: state, zoomTo, street).
	Views string `json:"cesium_views,omitempty"`
	// ValidatorFailed and CesiumFailed say why a judge could not finish
	// (the tool failed to run, the page did not report).
	ValidatorFailed string `json:"validator_failed,omitempty"`
	CesiumFailed    string `json:"cesium_failed,omitempty"`
	// CesiumErrors are the page's errors (console.error, uncaught).
	CesiumErrors []string `json:"cesium_errors,omitempty"`
}

func (r *JudgeReport) product(name string) *Judgement {
	for i := range r.Products {
		if r.Products[i].Product == name {
			return &r.Products[i]
		}
	}
	r.Products = append(r.Products, Judgement{Product: name})
	return &r.Products[len(r.Products)-1]
}

// validate runs the validator on every product below data.
func validate(ctx context.Context, j Judges, data string, products []TSInfo, rep *JudgeReport) error {
	if j.Validator == "" {
		return nil
	}
	t0 := time.Now()
	defer func() { rep.ValidateS = time.Since(t0).Seconds() }()
	script, err := writeJudgeFile("validate.js")
	if err != nil {
		return err
	}
	defer os.Remove(script)
	limit := j.SampleContent
	if limit == 0 {
		limit = 300
	}
	for _, p := range products {
		jp := rep.product(p.Product)
		ts := filepath.Join(data, filepath.FromSlash(p.Product), "tileset.json")
		content := contentFiles(filepath.Dir(ts))
		jp.ContentFiles = len(content)
		p0 := time.Now()
		var lines []validatorLine
		if limit < 0 || len(content) <= limit {
			lines, err = runValidator(ctx, j, script, "tileset", ts)
			jp.ContentValidated = len(content)
		} else {
			// The tileset JSON and its external tilesets whole, then the
			// sample of the content.
			lines, err = runValidator(ctx, j, script, "structure", ts)
			if err == nil {
				var more []validatorLine
				sample := evenly(content, limit)
				more, err = runValidator(ctx, j, script, "content", sample...)
				lines = append(lines, more...)
				jp.ContentValidated = len(sample)
			}
		}
		jp.ValidateS = time.Since(p0).Seconds()
		if err != nil {
			return fmt.Errorf("scalerun: validator on %s: %w", p.Product, err)
		}
		jp.Validated = true
		for _, l := range lines {
			jp.ValidatorErrors += l.Errors
			jp.ValidatorWarnings += l.Warnings
			for _, is := range l.Issues {
				if len(jp.ValidatorIssues) < 5 {
					rel, _ := filepath.Rel(data, l.File)
					jp.ValidatorIssues = append(jp.ValidatorIssues, filepath.ToSlash(rel)+": "+is)
				}
			}
		}
	}
	return nil
}

type validatorLine struct {
	File             string
	Errors, Warnings int
	Issues           []string
}

// runValidator runs validate.js in mode on files, in batches of 500
// (the command line), and reads its lines.
func runValidator(ctx context.Context, j Judges, script, mode string, files ...string) ([]validatorLine, error) {
	var out []validatorLine
	for len(files) > 0 {
		n := min(len(files), 500)
		cmd := exec.CommandContext(ctx, j.Node, cat([]string{script, j.Validator, mode}, files[:n])...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return out, fmt.Errorf("%w: %s", err, tail(stderr.String(), 1000))
		}
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(nil, 1<<20)
		got := 0
		for sc.Scan() {
			var l validatorLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.File != "" {
				out, got = append(out, l), got+1
			}
		}
		if got != n {
			return out, fmt.Errorf("%d reports for %d files: %s", got, n, tail(stdout.String()+stderr.String(), 1000))
		}
		files = files[n:]
	}
	return out, nil
}

// contentFiles lists the tile content files below dir, sorted.
func contentFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			switch strings.ToLower(filepath.Ext(p)) {
			case ".glb", ".b3dm", ".i3dm", ".pnts", ".cmpt":
				out = append(out, p)
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// evenly picks n of the files spread evenly over the list (first and last
// included).
func evenly(files []string, n int) []string {
	if n >= len(files) {
		return files
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, files[i*(len(files)-1)/max(n-1, 1)])
	}
	return out
}

func writeJudgeFile(name string) (string, error) {
	b, err := judgeFiles.ReadFile("judgejs/" + name)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "scalerun-*-"+name)
	if err != nil {
		return "", fmt.Errorf("scalerun: %w", err)
	}
	_, err = f.Write(b)
	return f.Name(), errors.Join(err, f.Close())
}

// stateExtent is the WGS84 box (W, S, E, N) around the generated tiles.
func stateExtent(tiles []scalegen.Tile) [4]float64 {
	ext := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, t := range tiles {
		for _, c := range [][2]int{{t.EKM, t.NKM}, {t.EKM + 1, t.NKM}, {t.EKM, t.NKM + 1}, {t.EKM + 1, t.NKM + 1}} {
			lon, lat := geo.FromUTM(geo.Zone32, float64(c[0])*1000, float64(c[1])*1000)
			ext = [4]float64{min(ext[0], lon), min(ext[1], lat), max(ext[2], lon), max(ext[3], lat)}
		}
	}
	return ext
}

// streetPoint is the centre (degrees) and top height of the deepest leaf
// with content of the tileset at path (through its external tilesets)
// nearest to (lon, lat): a street view into the densest part of the
// product near the state's centre.
func streetPoint(path string, lon0, lat0 float64) (lon, lat, top float64, err error) {
	best, bestD := -1, math.Inf(1)
	type tile struct {
		BoundingVolume struct{ Region []float64 }
		Content        *struct{ URI string }
		Children       []*tile
	}
	var visit func(path string, depth int) error
	visit = func(path string, depth int) error {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc struct{ Root tile }
		if err := json.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		var walk func(tl *tile, depth int) error
		walk = func(tl *tile, depth int) error {
			if tl.Content != nil && strings.HasSuffix(tl.Content.URI, ".json") {
				u, _ := url.PathUnescape(tl.Content.URI)
				if err := visit(filepath.Join(filepath.Dir(path), filepath.FromSlash(u)), depth+1); err != nil {
					return err
				}
			} else if r := tl.BoundingVolume.Region; tl.Content != nil && len(r) == 6 && len(tl.Children) == 0 {
				x, y := (r[0]+r[2])/2*180/math.Pi, (r[1]+r[3])/2*180/math.Pi
				d := math.Hypot((x-lon0)*math.Cos(lat0*math.Pi/180), y-lat0)
				if depth > best || depth == best && d < bestD {
					best, bestD, lon, lat, top = depth, d, x, y, r[5]
				}
			}
			for _, c := range tl.Children {
				if err := walk(c, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		return walk(&doc.Root, depth)
	}
	if err := visit(path, 0); err != nil {
		return 0, 0, 0, err
	}
	if best < 0 {
		return 0, 0, 0, fmt.Errorf("%s: no leaf with content and a region", path)
	}
	return lon, lat, top, nil
}

// pageReport is what judgejs/state.html posts.
type pageReport struct {
	Done, OK bool
	Cesium   string
	Errors   []string
	Products []struct {
		URL    string
		Failed []string
		Errors []string
		Views  map[string]struct {
			Requests     int
			MS           int
			URLs         []string
			ContentReady int
			Hits         int
		}
	}
}

// view loads every product's root tileset served at base/tiles/ in
// CesiumJS (judgejs/state.html, one page load for all) and records the
// requests of its views.
func view(ctx context.Context, j Judges, log io.Writer, base, data string, m *scalegen.Manifest, products []TSInfo, rep *JudgeReport) error {
	if j.Chromium == "" {
		return nil
	}
	t0 := time.Now()
	defer func() { rep.CesiumS = time.Since(t0).Seconds() }()
	ext := stateExtent(m.Tiles)
	q := url.Values{"state": {fmt.Sprintf("%f,%f,%f,%f", ext[0], ext[1], ext[2], ext[3])}}
	if len(j.Views) > 0 {
		q.Set("views", strings.Join(j.Views, ","))
	}
	q.Set("settle", "240000") // SwiftShader on a loaded machine: a view of a whole product takes minutes
	rep.Views = strings.Join(j.Views, ",")
	var viewed []string
	for _, p := range products {
		if len(j.Products) > 0 && !slices.Contains(j.Products, p.Product) {
			continue
		}
		ts := filepath.Join(data, filepath.FromSlash(p.Product), "tileset.json")
		lon, lat, top, err := streetPoint(ts, (ext[0]+ext[2])/2, (ext[1]+ext[3])/2)
		if err != nil {
			return fmt.Errorf("scalerun: %w", err)
		}
		q.Add("tileset", base+"/tiles/"+p.Product+"/tileset.json")
		q.Add("street", fmt.Sprintf("%f,%f,%.1f", lon, lat, top))
		viewed = append(viewed, p.Product)
	}
	if len(viewed) == 0 {
		return nil
	}
	page, err := newPageServer(j.CesiumDir, log)
	if err != nil {
		return err
	}
	defer page.close()
	body, err := page.load(ctx, j.Chromium, page.url+"/state.html?"+q.Encode())
	if err != nil {
		return fmt.Errorf("scalerun: CesiumJS: %w", err)
	}
	var pr pageReport
	if err := json.Unmarshal(body, &pr); err != nil || !pr.Done {
		return fmt.Errorf("scalerun: CesiumJS: page report %.300s: %v", body, err)
	}
	rep.CesiumErrors = pr.Errors
	for i, name := range viewed {
		jp := rep.product(name) // a pointer into rep.Products: taken after every append
		if i >= len(pr.Products) {
			jp.CesiumErrors = append(jp.CesiumErrors, "not viewed (the page stopped before it)")
			continue
		}
		pp := pr.Products[i]
		jp.Viewed, jp.Cesium = len(pp.Views) > 0, pr.Cesium
		jp.CesiumErrors = append(append(jp.CesiumErrors, pp.Errors...), pp.Failed...)
		st, zt, sv := pp.Views["state"], pp.Views["zoomTo"], pp.Views["street"]
		jp.StateRequests, jp.StateMS, jp.ZoomToRequests = st.Requests, st.MS, zt.Requests
		jp.StreetRequests, jp.StreetMS, jp.StreetHits, jp.StreetContent = sv.Requests, sv.MS, sv.Hits, sv.ContentReady
		for _, u := range st.URLs {
			if rel, ok := strings.CutPrefix(u, "/tiles/"); ok {
				if fi, err := os.Stat(filepath.Join(data, filepath.FromSlash(rel))); err == nil {
					jp.StateBytes += fi.Size()
				}
			}
		}
	}
	return nil
}

// pageServer serves judgejs/state.html and CesiumJS on a loopback origin
// of its own and receives the page's report.
type pageServer struct {
	log    io.Writer // the page's progress
	url    string
	srv    *http.Server
	result chan []byte
}

func newPageServer(cesiumDir string, log io.Writer) (*pageServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("scalerun: %w", err)
	}
	p := &pageServer{log: log, url: "http://" + l.Addr().String(), result: make(chan []byte, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /state.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(StatePage())
	})
	mux.Handle("GET /Cesium/", http.StripPrefix("/Cesium/", http.FileServer(http.Dir(cesiumDir))))
	mux.HandleFunc("POST /progress", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		fmt.Fprintf(p.log, "CesiumJS            %s\n", body)
	})
	mux.HandleFunc("POST /result", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		select {
		case p.result <- body:
		default:
		}
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(l)
	return p, nil
}

func (p *pageServer) close() { p.srv.Close() }

// pageLimit bounds one page of views. The page views every product three
// ways in software rendering: at SCALE 0.03 on 2 cores the 21 views took
// just over 300 s (two street views 33-35 s each), and the 5 minutes this
// was discarded all 20 finished views when the last one ran out.
const pageLimit = 20 * time.Minute

// load opens pageURL in headless Chromium (WebGL on SwiftShader, in real
// time) and returns the report the page posts; the browser's process
// group is killed afterwards.
func (p *pageServer) load(ctx context.Context, chromium, pageURL string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, pageLimit)
	defer cancel()
	profile, err := os.MkdirTemp("", "scalerun-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--no-first-run", "--no-default-browser-check", "--mute-audio", "--hide-scrollbars",
		"--window-size=1280,800", "--user-data-dir="+profile, pageURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { cancel(); <-exited }()
	select {
	case body := <-p.result:
		return body, nil
	case err := <-exited:
		exited <- err
		return nil, fmt.Errorf("chromium exited before the page reported: %v\n%s", err, tail(stderr.String(), 2000))
	case <-ctx.Done():
		return nil, fmt.Errorf("no report from the page: %w\n%s", ctx.Err(), tail(stderr.String(), 2000))
	}
}

// logJudge writes the validator's (views false) or CesiumJS's lines.
func logJudge(w io.Writer, r JudgeReport, views bool) {
	switch {
	case !views && r.SkipValidator != "":
		fmt.Fprintf(w, "3d-tiles-validator  skipped: %s\n", r.SkipValidator)
	case views && r.SkipCesium != "":
		fmt.Fprintf(w, "CesiumJS            skipped: %s\n", r.SkipCesium)
	case views:
		fmt.Fprintf(w, "CesiumJS            %.1f s %s %s\n", r.CesiumS, tail(r.CesiumFailed, 2000), strings.Join(r.CesiumErrors, "; "))
	case r.ValidatorFailed != "":
		fmt.Fprintf(w, "3d-tiles-validator  failed: %s\n", tail(r.ValidatorFailed, 2000))
	}
	for _, p := range r.Products {
		switch {
		case !views && p.Validated:
			fmt.Fprintf(w, "3d-tiles-validator  %-36s %d errors, %d warnings, %d of %d content files, %.1f s %s\n",
				p.Product, p.ValidatorErrors, p.ValidatorWarnings, p.ContentValidated, p.ContentFiles, p.ValidateS, strings.Join(p.ValidatorIssues, "; "))
		case views && p.Viewed:
			fmt.Fprintf(w, "CesiumJS %-8s    %-36s state %d requests (%d bytes, %d ms), zoomTo %d, street %d (%d ms, %d/100 picks hit) %s\n",
				p.Cesium, p.Product, p.StateRequests, p.StateBytes, p.StateMS, p.ZoomToRequests, p.StreetRequests, p.StreetMS, p.StreetHits, strings.Join(p.CesiumErrors, "; "))
		}
	}
}

// judgeMarkdown writes the judges' table.
func judgeMarkdown(w io.Writer, r JudgeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\n## Judges: the 3D Tiles validator and CesiumJS\n\n")
	if r.SkipValidator != "" {
		p("- 3D Tiles validator: skipped (%s)\n", r.SkipValidator)
	} else {
		p("- 3D Tiles validator (official CesiumGS, ../shared/tools/3d-tiles-validator) on each root tileset.json with its external tilesets; content files all or an even sample: %.1f s\n", r.ValidateS)
	}
	if r.SkipCesium != "" {
		p("- CesiumJS: skipped (%s)\n", r.SkipCesium)
	} else {
		v := ""
		for _, j := range r.Products {
			if j.Cesium != "" {
				v = j.Cesium
			}
		}
		p("- CesiumJS %s in headless Chromium (SwiftShader) against the running svc serve, %.1f s: tile requests (tileset JSON and content) of the first view of the whole state (camera set before the tileset loads; target < %d), of viewer.zoomTo on a fresh instance, and of the move to a street view 250 m above the deepest leaf nearest the state's centre, looking north at 45° (budget %d); picks: of 100 over the street view, how many hit the tileset\n",
			v, r.CesiumS, StateViewMaxRequests+1, StreetViewMaxRequests)
	}
	p("\n| product | validator errors | warnings | content validated | state view requests | bytes | zoomTo requests | street view requests | street picks hit |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, j := range r.Products {
		val, warn, cont := "skipped", "", ""
		if j.Validated {
			val, warn, cont = fmt.Sprint(j.ValidatorErrors), fmt.Sprint(j.ValidatorWarnings), fmt.Sprintf("%d of %d", j.ContentValidated, j.ContentFiles)
		}
		vs := "| skipped | | | | "
		if len(j.CesiumErrors) > 0 && !j.Viewed {
			vs = "| failed (below) | | | | "
		}
		if j.Viewed {
			vs = fmt.Sprintf("| %d | %d | %d | %d | %d/100 ", j.StateRequests, j.StateBytes, j.ZoomToRequests, j.StreetRequests, j.StreetHits)
		}
		p("| %s | %s | %s | %s %s|\n", j.Product, val, warn, cont, vs)
	}
	if r.ValidatorFailed != "" {
		p("- 3D Tiles validator failed: %s\n", strings.ReplaceAll(tail(r.ValidatorFailed, 500), "\n", " "))
	}
	if r.CesiumFailed != "" {
		p("- CesiumJS failed: %s\n", strings.ReplaceAll(tail(r.CesiumFailed, 500), "\n", " "))
	}
	for _, e := range r.CesiumErrors {
		p("- CesiumJS: %s\n", oneLine(e))
	}
	for _, j := range r.Products {
		for _, is := range j.ValidatorIssues {
			p("- %s validator: %s\n", j.Product, oneLine(is))
		}
		for _, e := range j.CesiumErrors {
			p("- %s CesiumJS: %s\n", j.Product, oneLine(e))
		}
	}
}

// oneLine is a message's first line, cut to 300 bytes, for a table's list.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return strings.ReplaceAll(s, "|", "/")
}
