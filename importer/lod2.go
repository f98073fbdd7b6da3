package importer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// LoD2File is the name of the SpatiaLite file inside a LoD2 pack.
const LoD2File = "lod2.sqlite"

// LoD2 imports CityGML files, directories of them or zip archives (paths)
// into a new LoD2 pack of c.BL and c.Snapshot and publishes it. Geometry is
// kept in the source CRS, that of the first file with a building; a file
// in another CRS is bad.
//
// c.Workers goroutines parse, validate and encode whole files; one writer
// adds their buildings in input order, so the pack's content is the same
// for any worker count. A bad file (unreadable, malformed XML, a broken
// zip entry, another CRS) is left out whole and listed in the summary's
// BadFiles; with c.Strict it fails the import instead.
//
// Surface classes: WallSurface 709, GroundSurface 710 and RoofSurface 712
// are kept. Geometry given only as lod2Solid/lod2MultiSurface is classified
// per polygon by its normal (see classify). ClosureSurface (virtual
// openings), OuterCeilingSurface and OuterFloorSurface are skipped: the API
// knows only the three classes.
func LoD2(ctx context.Context, c Common, paths []string) (pack.Manifest, error) {
	st, err := c.check()
	if err != nil {
		return pack.Manifest{}, err
	}
	inputs, err := citygml.Inputs(paths)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	w, fresh, err := pack.CreateResumable(c.DataDir, pack.Key{Product: pack.LoD2, BL: c.BL, Snapshot: c.Snapshot})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	imp := &lod2Import{c: c, st: st, ctx: ctx, dir: w.Dir(), inputs: inputs, place: newPlaceCheck(st), bytesTotal: inputsTotal(inputs)}
	m, err := imp.importAll(w, fresh)
	if err != nil {
		if imp.w != nil {
			imp.w.Close()
		}
		imp.jr.close()
		// Keep what a later --resume can continue after an interruption
		// (cancel, kill, I/O error, a bad file with --strict); an import
		// that got nowhere or was refused (options, wrong BL) leaves
		// nothing behind.
		if imp.kept && !errors.Is(err, ErrOptions) && !errors.Is(err, ErrWrongBL) {
			w.Suspend()
		} else {
			w.Abort()
		}
		return pack.Manifest{}, err
	}
	return m, nil
}

// importAll takes over or clears the resumable directory, imports the
// files not done yet, checks them, finishes the store and commits.
func (imp *lod2Import) importAll(w *pack.Writer, fresh bool) (pack.Manifest, error) {
	c := imp.c
	h := journalHeader{Format: journalFormat, BL: c.BL, Snapshot: c.Snapshot, Inputs: len(imp.inputs)}
	from, end := 0, int64(0)
	if !fresh {
		why := "import run without --resume"
		if c.Resume {
			r, ok, err := readJournal(w.Dir(), h)
			switch {
			case err != nil:
				why = err.Error()
			case !ok:
				why = "no checkpoint of these inputs"
			default:
				if from, err = imp.restore(r); errors.Is(err, ErrOptions) {
					return pack.Manifest{}, err
				} else if err != nil {
					why, from = err.Error(), 0
					imp.reset()
				} else {
					end = r.end
					imp.kept = from > 0
				}
			}
		}
		if from == 0 && end == 0 {
			imp.restarted = why
			if err := w.Clear(); err != nil {
				return pack.Manifest{}, fmt.Errorf("importer: %w", err)
			}
		}
	}
	imp.resumedFiles, imp.bytesResumed = from, imp.bytes.Load()
	if imp.w == nil {
		imp.prev = findPrevious(imp.ctx, c.DataDir, c.BL, c.Snapshot, c.Checksum)
	} else if p := imp.w.State().Prev; p != "" {
		imp.prev = findPrevious(imp.ctx, c.DataDir, c.BL, c.Snapshot, c.Checksum)
		if imp.prev != nil && imp.prev.path != p {
			imp.prev = nil // published meanwhile: the store copies from the one it attached
		}
	}
	jr, err := openJournal(w.Dir(), h, end)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: journal: %w", err)
	}
	imp.jr = jr
	if imp.w == nil && imp.prev != nil && from == 0 {
		m, err := imp.patchAll(w)
		if !errors.Is(err, lod2store.ErrNoPatch) {
			return m, err
		}
		// Write a new pack after all, copying the unchanged files' rows.
		imp.noPatch = err.Error()
		if imp.w != nil {
			imp.w.Abort()
			imp.w = nil
		}
		imp.reset()
		// The inputs were looked up (hashed) already: not again.
		imp.patching, imp.reused = false, 0
		for i := range imp.known {
			imp.known[i].kept = nil
		}
		imp.parsed.Store(0)
		imp.jr.close()
		if err := w.Clear(); err != nil {
			return pack.Manifest{}, fmt.Errorf("importer: %w", err)
		}
		if imp.jr, err = openJournal(w.Dir(), h, 0); err != nil {
			return pack.Manifest{}, fmt.Errorf("importer: journal: %w", err)
		}
	}
	return imp.finishAll(w, from)
}

// finishAll imports the files from input from on, checks them, finishes
// the store and commits.
func (imp *lod2Import) finishAll(w *pack.Writer, from int) (pack.Manifest, error) {
	c := imp.c
	if err := imp.run(imp.ctx, from); err != nil {
		// A cancelled context closes the writer's prepared statements under
		// it, which database/sql reports as "statement is closed": the cause
		// is the interruption, and callers (exit status, --resume advice)
		// must see it as such.
		if cerr := imp.ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (%v)", cerr, err)
		}
		return pack.Manifest{}, err
	}
	if err := imp.checkBL(imp.st); err != nil {
		return pack.Manifest{}, err
	}
	stats, err := imp.w.Finish(imp.ctx, map[string]string{
		"bl": c.BL, "snapshot": c.Snapshot, "license_id": c.LicenseID, "source_url": c.SourceURL,
		"import_finished_at": time.Now().UTC().Format(time.RFC3339),
	})
	imp.w = nil
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	imp.jr.close()
	if err := os.Remove(filepath.Join(w.Dir(), journalName)); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	m := c.manifest(imp.st)
	m.CRS = fmt.Sprintf("EPSG:%d", imp.epsg)
	m.BBoxWGS84 = stats.BBoxWGS84[:]
	pct := 0.0
	if stats.Buildings > 0 {
		pct = math.Round(1000*float64(stats.ValidBuildings)/float64(stats.Buildings)) / 10
	}
	m.LoD2 = &pack.LoD2Info{File: LoD2File, BuildingCount: stats.Buildings, SurfaceCount: stats.Surfaces, ValidationPassPct: &pct}
	if m, err = w.Commit(imp.ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	if c.Summary != nil {
		*c.Summary = LoD2Summary{Invalid: imp.invalid, Skipped: imp.skipped, Duplicates: stats.Duplicates,
			InvalidDetail: imp.invalidDetail, SkippedAt: imp.skippedAt, BadFiles: imp.bad,
			Files: len(imp.inputs), ResumedFiles: imp.resumedFiles, Restarted: imp.restarted,
			ParsedFiles: int(imp.parsed.Load()), ReusedFiles: imp.reused}
		if imp.prev != nil {
			c.Summary.ReusedFrom = imp.prev.snapshot
			c.Summary.UnreadFiles = int(imp.prev.quick.Load())
		}
		c.Summary.Patched, c.Summary.NoPatch = imp.patching, imp.noPatch
	}
	return m, nil
}

// reset forgets what a failed restore took over.
func (imp *lod2Import) reset() {
	if imp.w != nil {
		imp.w.Close()
	}
	imp.w, imp.epsg, imp.prefixes, imp.example = nil, 0, nil, nil
	imp.invalid, imp.skipped, imp.invalidDetail, imp.skippedAt, imp.bad = nil, nil, nil, nil, nil
	imp.place = newPlaceCheck(imp.st)
	for _, n := range []*atomic.Int64{&imp.bytes, &imp.files, &imp.written, &imp.badFiles} {
		n.Store(0)
	}
}

// LoD2Summary lists what an import did not take as it came: buildings that
// failed geometric validation (kept, flagged), buildings without a usable
// surface (left out) and repeated gml:ids (left out).
type LoD2Summary struct {
	Invalid, Skipped []string // gml:ids
	Duplicates       int64
	// InvalidDetail says, for each of Invalid in the same order, where the
	// building is and which polygons failed which checks.
	InvalidDetail []InvalidBuilding
	// SkippedAt is the source (file:line) of each of Skipped.
	SkippedAt []string
	// BadFiles are the input files left out whole, in input order (see
	// Common.Strict).
	BadFiles []BadFile
	// Files is the number of input files.
	Files int
	// ResumedFiles is how many input files an interrupted import had done
	// (Common.Resume): they were not read again.
	ResumedFiles int
	// ParsedFiles is how many files this run parsed; ReusedFiles how many
	// unchanged ones it copied from the snapshot ReusedFrom instead.
	ParsedFiles, ReusedFiles int
	ReusedFrom               string
	// UnreadFiles is how many inputs the quick check found unchanged
	// from ReusedFrom (relative name, size and modification time equal
	// its record) without reading them; see Common.Checksum.
	UnreadFiles int
	// Patched says the new pack was written by patching a copy of the
	// ReusedFrom pack (only the changed files' rows written); NoPatch why
	// it was not, when it had to be written whole instead.
	Patched bool
	NoPatch string
	// Restarted says why an interrupted import of the same snapshot was
	// discarded and the import started over; "" when there was none.
	Restarted string
}

// maxDefects is how many failed polygons an InvalidBuilding keeps.
const maxDefects = 5

// InvalidBuilding is a building that failed geometric validation.
type InvalidBuilding struct {
	ID      string
	Source  string           // file:line of the bldg:Building
	Defects []citygml.Defect // the first maxDefects failed polygons
	Failed  int              // how many polygons failed in all
}

// ErrWrongBL reports an import whose files contradict --bl: their CRS is
// not the BL's, most of their AdV building ids name another BL, or a file
// lies mostly outside the BL's boundary (see placeCheck), or a raster's
// values look like another role's (see checkRole). Common.Force imports
// anyway.
var ErrWrongBL = errors.New("the files do not look like data of this BL")

// checkBL compares the imported files with the BL they are imported as.
func (imp *lod2Import) checkBL(st bl.State) error {
	if imp.c.Force || imp.w == nil {
		return nil
	}
	var why []string
	if imp.epsg != st.EPSG {
		why = append(why, fmt.Sprintf("their CRS is EPSG:%d, %s delivers EPSG:%d", imp.epsg, st.Code, st.EPSG))
	}
	other, n := "", 0
	for code, c := range imp.prefixes {
		if code != st.Code && c > n {
			other, n = code, c
		}
	}
	if total := imp.prefixes[st.Code] + n; n > 0 && 2*n > total {
		o, _ := bl.Lookup(other)
		why = append(why, fmt.Sprintf("%d of their building ids start with %s (%s), e.g. %s", n, o.IDPrefix, o.Name, imp.example[other]))
	}
	place, suggest := imp.place.problem()
	if place != "" {
		why = append(why, place)
	}
	if len(why) == 0 {
		return nil
	}
	if suggest == "" {
		suggest = other
	}
	return wrongBL(st, why, suggest)
}

type lod2Import struct {
	c        Common
	st       bl.State
	prefixes map[string]int    // BL of AdV-prefixed building ids -> buildings
	example  map[string]string // BL -> a building id with its prefix
	invalid  []string          // gml:ids that failed validation
	skipped  []string          // gml:ids without a usable surface
	// invalidDetail and skippedAt follow invalid and skipped.
	invalidDetail []InvalidBuilding
	skippedAt     []string
	bad           []BadFile
	place         *placeCheck // where each file's buildings lie
	dir           string
	inputs        []citygml.Input
	w             *lod2store.LoD2Writer
	epsg          int
	ctx           context.Context // the writer's (its transaction is bound to it)
	jr            *journal
	kept          bool // a checkpoint holds finished files: worth resuming
	resumedFiles  int
	bytesResumed  int64
	prev          *previous // the snapshot unchanged files are copied from
	patching      bool      // w patches a copy of prev's file (lod2patch.go)
	known         []match   // when patching: each input's match in prev
	noPatch       string
	reused        int
	parsed        atomic.Int64
	restarted     string
	// Progress counters, read by the progress goroutine.
	bytesTotal            int64
	bytes, files, written atomic.Int64
	badFiles              atomic.Int64
	lastFile              atomic.Pointer[string]
}

// convert maps a parsed building to the store's input form.
func convert(b *citygml.Building) lod2store.BuildingInput {
	out := lod2store.BuildingInput{GMLID: b.ID, PartIDs: b.Parts,
		Valid: citygml.Validate(b, citygml.DefaultPlanarityTolM).OK()}
	out.Attrs, out.Measures = convertAttrs(b)
	for _, s := range b.Surfaces {
		owner := s.OwnerID
		if owner == "" {
			owner = b.ID
		}
		switch s.Class {
		case citygml.Wall, citygml.Roof, citygml.Ground:
			out.Surfaces = append(out.Surfaces, lod2store.SurfaceInput{OwnerID: owner, Class: s.Class.Code(), Polygons: polygons(s.Polygons)})
		case citygml.Unclassified:
			for _, p := range s.Polygons {
				out.Surfaces = append(out.Surfaces, lod2store.SurfaceInput{OwnerID: owner, Class: classify(p.Exterior),
					Polygons: polygons([]citygml.Polygon{p})})
			}
		}
	}
	return out
}

func polygons(ps []citygml.Polygon) [][]lod2store.Ring {
	out := make([][]lod2store.Ring, 0, len(ps))
	for _, p := range ps {
		rings := make([]lod2store.Ring, 0, 1+len(p.Interiors))
		rings = append(rings, ring(p.Exterior))
		for _, h := range p.Interiors {
			rings = append(rings, ring(h))
		}
		out = append(out, rings)
	}
	return out
}

func ring(r citygml.Ring) lod2store.Ring {
	out := make(lod2store.Ring, len(r))
	for i, p := range r {
		out[i] = p
	}
	return out
}

// classify names an unclassified polygon by its Newell normal, which
// points outward since CityGML orders exterior rings counter-clockwise seen
// from outside: within 80 degrees of straight up it is roof, within 80
// degrees of straight down ground, anything steeper wall.
func classify(r citygml.Ring) int {
	var nx, ny, nz float64
	if len(r) == 0 {
		return lod2store.ClassWall
	}
	o := r[0]
	for i := range r {
		a, b := r[i], r[(i+1)%len(r)]
		ax, ay, az := a[0]-o[0], a[1]-o[1], a[2]-o[2]
		bx, by, bz := b[0]-o[0], b[1]-o[1], b[2]-o[2]
		nx += (ay - by) * (az + bz)
		ny += (az - bz) * (ax + bx)
		nz += (ax - bx) * (ay + by)
	}
	n := math.Sqrt(nx*nx + ny*ny + nz*nz)
	if n == 0 {
		return lod2store.ClassWall
	}
	switch cos := nz / n; {
	case cos > math.Cos(80*math.Pi/180):
		return lod2store.ClassRoof
	case cos < -math.Cos(80*math.Pi/180):
		return lod2store.ClassGround
	}
	return lod2store.ClassWall
}
