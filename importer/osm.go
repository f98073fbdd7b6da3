package importer

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/osmdata"
	"github.com/svc-geodata/svc/pack"
)

// OSMFeaturesFile is the name of the features file in an osm pack.
const OSMFeaturesFile = "features.jsonl.gz"

// OSMAttribution is what ODbL requires to be shown.
const OSMAttribution = osmdata.Attribution

// OSM imports an OpenStreetMap extract (.osm.pbf, or .osm XML) of c.BL:
// the classified areas, transport lines and coastline (package osmdata)
// that lie in the BL (within bl.BorderMarginM of its boundary; features
// wholly outside are dropped, unless c.Force), cut to the extent of the
// BL's published DGM the cover is draped on (or, when the BL has none or
// the extract does not meet it, to the file's header bounds), into an osm
// pack that `svc build osm-cover` turns into 3D Tiles.
// Bad input is an error naming the file and what is wrong: not an OSM file
// or truncated, no way in it, nothing inside the BL (ErrWrongBL, naming the
// state the extract lies in).
func OSM(ctx context.Context, c Common, file string) (pack.Manifest, error) {
	return OSMWith(ctx, c, file, OSMOptions{})
}

// OSMOptions are the options of an OSM import beyond Common.
type OSMOptions struct {
	// ClipPoly is the osmosis .poly file the extract was cut by (as
	// Geofabrik publishes beside its extracts); open coastline chains are
	// closed along it. Empty: along the file's header bounds, else the
	// extent of its nodes.
	ClipPoly string
	// Summary, when set, receives each way and relation the import could
	// not use and why (osmdata.Stats.Skipped; the manifest keeps only their
	// counts, as a state extract cut by a polygon has thousands).
	Summary *OSMSummary
}

// OSMSummary is what an OSM import left out, by id and why.
type OSMSummary struct {
	Skipped []osmdata.Skip
}

// OSMWith is OSM with options. A ClipPoly that cannot be read or parsed is
// an ErrOptions error naming the file and line.
func OSMWith(ctx context.Context, c Common, file string, oo OSMOptions) (pack.Manifest, error) {
	c = c.Normalize()
	var boundary *osmdata.Poly
	if oo.ClipPoly != "" {
		f, err := os.Open(oo.ClipPoly)
		if err != nil {
			return pack.Manifest{}, fmt.Errorf("%w: --clip-poly %s: %v", ErrOptions, oo.ClipPoly, errors.Unwrap(err))
		}
		p, err := osmdata.ParsePoly(f)
		f.Close()
		if err != nil {
			return pack.Manifest{}, fmt.Errorf("%w: --clip-poly %s: %v", ErrOptions, oo.ClipPoly, err)
		}
		boundary = &p
	}
	st, err := c.check()
	if err != nil {
		return pack.Manifest{}, err
	}
	zone, err := geo.ZoneForEPSG(st.EPSG)
	if err != nil {
		return pack.Manifest{}, err
	}
	fi, err := os.Stat(file)
	switch {
	case err != nil:
		return pack.Manifest{}, fmt.Errorf("%w: %s: %v", ErrOptions, file, errors.Unwrap(err))
	case fi.IsDir():
		return pack.Manifest{}, fmt.Errorf("%w: %s is a directory, not an .osm.pbf or .osm file", ErrOptions, file)
	case fi.Size() == 0:
		return pack.Manifest{}, fmt.Errorf("%w: %s is empty", osmdata.ErrFormat, file)
	}
	xml, err := sniffXML(file)
	if err != nil {
		return pack.Manifest{}, err
	}
	tally := bl.NewTally(st, bl.BorderMarginM)
	keep := tally.Add
	if c.Force {
		keep = nil
	}
	// The reader's live memory is the kept ways and node coordinates; the
	// decoder churns through blocks around it. A tighter GC target keeps the
	// peak near the live size (60 MB of PBF: 274 MB peak RSS instead of 561,
	// 15 % slower), so a state extract stays well under 1.5 GB.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	w, err := pack.Create(c.DataDir, pack.Key{Product: pack.OSM, BL: c.BL, Snapshot: c.Snapshot})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	defer w.Abort()
	fw, err := newFeatureWriter(filepath.Join(w.Dir(), OSMFeaturesFile))
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	defer fw.f.Close()
	open := func() (io.ReadCloser, error) { return os.Open(file) }
	prog := newOSMProgress(c.Progress, file, fi.Size())
	opt := osmdata.Options{Zone: zone, Clip: terrainExtent(c.DataDir, c.BL), Keep: keep, XML: xml, Boundary: boundary,
		Workers: c.Workers, Progress: prog.read}
	stats, err := osmdata.Stream(ctx, open, opt, prog.counted(fw.write))
	if errors.Is(err, osmdata.ErrOutside) && stats.Clip != nil && tally.Len() == 0 {
		// The extract does not meet the BL's DGM: it is judged by the
		// state's boundary alone (the DGM is not the state).
		opt.Clip = geo.BBox{}
		prog.again()
		stats, err = osmdata.Stream(ctx, open, opt, prog.counted(fw.write))
	}
	if err == nil {
		prog.done()
	}
	switch {
	case errors.Is(err, osmdata.ErrFormat):
		return pack.Manifest{}, fmt.Errorf("%s: %w (read as %s; truncated or another format)", file, err, map[bool]string{true: "OSM XML", false: ".osm.pbf"}[xml])
	case errors.Is(err, osmdata.ErrEmpty):
		return pack.Manifest{}, fmt.Errorf("%s: %w (%d nodes, %d relations)", file, err, stats.Nodes, stats.Relations)
	case errors.Is(err, osmdata.ErrOutside):
		pc := newPlaceCheck(st)
		pc.files, pc.tally[file] = []string{file}, tally
		why, suggest := pc.problem()
		if why == "" {
			why = fmt.Sprintf("none of its features lies in %s (%s)", st.Name, st.Code)
		}
		return pack.Manifest{}, wrongBL(st, []string{why}, suggest)
	case err != nil:
		return pack.Manifest{}, fmt.Errorf("%s: %w", file, err)
	}
	if fw.n == 0 {
		return pack.Manifest{}, fmt.Errorf("%s: %w: none of its %d ways is land cover, transport or coastline", file, osmdata.ErrEmpty, stats.Ways)
	}
	bbox, err := fw.close(zone)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	m := c.manifest(st)
	m.SourceName, m.Attribution = "OpenStreetMap", OSMAttribution
	if m.SourceURL == "" {
		m.SourceURL = "https://www.openstreetmap.org/copyright"
	}
	m.CRS = fmt.Sprintf("EPSG:%d", st.EPSG)
	m.BBoxWGS84 = bbox
	m.OSM = &pack.OSMInfo{File: OSMFeaturesFile, SourceFile: filepath.Base(file), Features: stats.Features,
		SkippedRelations: stats.SkippedRelations, SkippedWays: stats.SkippedWays, OutsideExtent: stats.OutsideExtent}
	if b := stats.Clip; b != nil {
		m.OSM.ClipUTM = []float64{b.MinX, b.MinY, b.MaxX, b.MaxY}
	}
	if oo.Summary != nil {
		oo.Summary.Skipped = stats.Skipped
	}
	if stats.Sea != nil {
		sea := *stats.Sea
		sea.MaxSnapM = math.Round(sea.MaxSnapM*10) / 10
		m.OSM.Sea = &sea
	}
	return w.Commit(ctx, m)
}

// sniffXML tells an OSM XML file from a PBF by its first bytes.
func sniffXML(file string) (bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	s := strings.TrimSpace(string(head[:n]))
	return strings.HasPrefix(s, "<"), nil
}

// terrainExtent is the WGS84 union of the BL's published terrain packs'
// extents, the zero box when it has none: the cover is draped on the DGM
// and its sea is closed on this box.
func terrainExtent(dataDir, code string) geo.BBox {
	b := geo.BBox{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	for _, f := range pack.List(dataDir) {
		m := f.Manifest
		if m.BL != code || f.Key.Product != pack.Terrain || len(m.BBoxWGS84) != 4 {
			continue
		}
		x := m.BBoxWGS84
		b = geo.BBox{MinLon: math.Min(b.MinLon, x[0]), MinLat: math.Min(b.MinLat, x[1]), MaxLon: math.Max(b.MaxLon, x[2]), MaxLat: math.Max(b.MaxLat, x[3])}
	}
	if math.IsInf(b.MinLon, 0) {
		return geo.BBox{}
	}
	return b
}

// featureWriter writes one JSON feature per line, gzip-compressed, as the
// reader hands them over, and keeps the extent of their geometry.
type featureWriter struct {
	f                      *os.File
	zw                     *gzip.Writer
	bw                     *bufio.Writer
	enc                    *json.Encoder
	n                      int
	minX, minY, maxX, maxY float64
}

func newFeatureWriter(path string) (*featureWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 1<<20)
	return &featureWriter{f: f, zw: zw, bw: bw, enc: json.NewEncoder(bw),
		minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}, nil
}

func (w *featureWriter) see(p [2]float64) {
	w.minX, w.maxX = math.Min(w.minX, p[0]), math.Max(w.maxX, p[0])
	w.minY, w.maxY = math.Min(w.minY, p[1]), math.Max(w.maxY, p[1])
}

func (w *featureWriter) write(ft osmdata.Feature) error {
	for _, p := range ft.Polygons {
		for _, pt := range p[0] {
			w.see(pt)
		}
	}
	for _, l := range ft.Lines {
		for _, pt := range l {
			w.see(pt)
		}
	}
	w.n++
	return w.enc.Encode(ft)
}

// close finishes the file and returns the WGS84 extent of the features.
func (w *featureWriter) close(z geo.Zone) ([]float64, error) {
	if err := w.bw.Flush(); err != nil {
		return nil, err
	}
	if err := w.zw.Close(); err != nil {
		return nil, err
	}
	lon0, lat0 := geo.FromUTM(z, w.minX, w.minY)
	lon1, lat1 := geo.FromUTM(z, w.maxX, w.maxY)
	lon2, lat2 := geo.FromUTM(z, w.minX, w.maxY)
	lon3, lat3 := geo.FromUTM(z, w.maxX, w.minY)
	return []float64{math.Min(lon0, lon2), math.Min(lat0, lat3), math.Max(lon1, lon3), math.Max(lat1, lat2)}, w.f.Sync()
}

// osmProgress turns the bytes an OSM import's passes read into
// Common.Progress calls, at most every progressEvery: one file, whose four
// passes each count its size (BytesTotal is four times the file), and the
// features written so far (Progress.Tiles).
type osmProgress struct {
	report   func(Progress)
	mu       sync.Mutex
	p        Progress
	base     int64 // bytes of the passes of an earlier Stream (again)
	last     time.Time
	features atomic.Int64
}

func newOSMProgress(report func(Progress), file string, size int64) *osmProgress {
	return &osmProgress{report: report, p: Progress{File: file, FilesTotal: 1, BytesTotal: 4 * size}}
}

// read is osmdata.Options.Progress.
func (op *osmProgress) read(n int64) {
	if op.report == nil {
		return
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	if now := time.Now(); now.Sub(op.last) >= progressEvery {
		op.last = now
		op.p.Bytes, op.p.Tiles = min(op.base+n, op.p.BytesTotal), op.features.Load()
		op.report(op.p)
	}
}

// again starts over for a second reading of the file.
func (op *osmProgress) again() {
	op.mu.Lock()
	op.base, op.p.BytesTotal = op.p.BytesTotal, 2*op.p.BytesTotal
	op.mu.Unlock()
}

// done reports the file read whole.
func (op *osmProgress) done() {
	if op.report == nil {
		return
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	op.p.Files, op.p.Bytes, op.p.Tiles = 1, op.p.BytesTotal, op.features.Load()
	op.report(op.p)
}

// counted wraps an emit function to count the features.
func (op *osmProgress) counted(emit func(osmdata.Feature) error) func(osmdata.Feature) error {
	return func(f osmdata.Feature) error {
		op.features.Add(1)
		return emit(f)
	}
}
