package tiles3d

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// Incremental builds. Every build pack holds InputsFile: per output tile
// (a DGM or CDSM tile by name, a quadtree leaf by level/x/y) the SHA-256
// of exactly the data the tile was computed from - the sampled heights,
// the canopy grid, the buildings' geometry, the OSM features near it - and
// what it produced (its tileset entries). The build's recipe (options,
// height model, attribution, format version) is hashed too. The next
// build of the BL reads the data of each tile and hashes it first; where
// recipe and hash equal the previous pack's, it hard-links the tile's
// files from that pack and takes its tileset entries instead of meshing
// and encoding again. The output is the same bytes either way.
const (
	// InputsFile is the name of the sidecar in a build pack.
	InputsFile = "build-inputs.json"
	// buildVersion changes whenever a build's output for the same inputs
	// changes (a new encoder, a new tileset rule), so that nothing built
	// by an older svc is reused.
	buildVersion = "2026-11-26.2" // .2: building attributes in the leaf metadata
	// tilesetVersion is added to buildVersion for the building tileset
	// alone, whose layout changed since (the other products' tiles stay
	// reusable): "files.1", a building leaf holds the buildings of one
	// source file (quadtree).
	tilesetVersion = buildVersion + "/files.1"
)

// BuildStats counts what a build did per output tile.
type BuildStats struct {
	Built  atomic.Int64 // tiles computed from their inputs
	Reused atomic.Int64 // tiles linked from the previous build: same inputs
	// Read counts the building leaves whose geometry was read to hash it
	// because their source key matched no previous leaf (built ones
	// included); a leaf reused by its source key is not read.
	Read atomic.Int64
	// Edge counts the raster tiles reused after sampling only the boundary
	// of their lattice (their own file unchanged, a neighbour's changed);
	// they are counted in Reused too.
	Edge atomic.Int64
	// Scanned counts the buildings whose footprint box was computed from
	// the LoD2 search file; a building tileset takes those of unchanged
	// source files from the previous build (ExtentsFile).
	Scanned atomic.Int64
	// Solar says, for a building tileset, whose solar values the roofs
	// carry, or why they carry none when the BL has a solar pack.
	Solar string
	// Stale, when set, says why the BL's previous build was not offered
	// for reuse although it exists (built by another svc version, or with
	// other options): every tile was built. Set before tiles are built.
	Stale string
}

// inputsDoc is InputsFile.
type inputsDoc struct {
	// Version is the build version of the svc that built the pack
	// (buildVersion, tilesetVersion; absent before tilesetVersion), to say
	// why its tiles are not reused.
	Version string                `json:"version,omitempty"`
	Recipe  string                `json:"recipe"`
	Tiles   map[string]reuseEntry `json:"tiles"`
}

// reuseEntry is one output tile of a build.
type reuseEntry struct {
	Inputs string `json:"inputs"`
	// Sources, when set, hashes the source files the inputs are read from
	// (their SHA-256 as the source pack's manifest lists them): equal
	// sources give equal inputs, so the tile is reused without reading them.
	Sources string `json:"sources,omitempty"`
	// Own and Edge, when set, key a raster tile by its own file (rasterKey)
	// and the samples on its lattice's boundary (edgeHash): when only a
	// neighbour's file changed, the boundary is all the next build reads.
	Own  string `json:"own,omitempty"`
	Edge string `json:"edge,omitempty"`
	// Tiles are its tileset entries by theme ("" for a single-theme pack),
	// their content URIs relative to the theme's directory; a theme
	// without content is absent.
	Tiles map[string]*tileJSON `json:"tiles,omitempty"`
	Count int64                `json:"count,omitempty"` // trees, buildings
	// size is the size of the content file of theme "" when reuse linked
	// it (0 otherwise), so that the caller need not stat it again.
	size int64
}

// reuser finds the tiles of a previous build and records those of this
// one. Its methods are safe for concurrent use.
type reuser struct {
	version string
	recipe  string
	prevDir string
	prev    map[string]reuseEntry
	mu      sync.Mutex
	next    map[string]reuseEntry
	stats   *BuildStats
	// rasterKeys are the keys of the tiles by index (rasterKeys), for
	// builds that read rasters of a pack; nil otherwise.
	rasterKeys []rasterKey
	// buildings finds the source files of building ids, for the building
	// tileset; nil otherwise (or for a pack without source_files).
	buildings *buildingSources
	// prevSums are the SHA-256 of the previous pack's files by path (its
	// manifest), and linked, when set, is told of each file linked from
	// it (pack.Writer.Reuse), so the commit does not hash it again.
	prevSums map[string]string
	linked   func(path string, src os.FileInfo, sha256 string)
}

// newReuser reads InputsFile of the previous build prev (none when its
// dir is ""); its tiles are offered only when its recipe equals this
// one's.
func newReuser(prev prevBuild, stats *BuildStats, recipe ...any) *reuser {
	return newReuserAt(buildVersion, prev, stats, recipe...)
}

// newReuserAt is newReuser for a product whose build version is version;
// stats.Stale says why a previous build's tiles are not offered.
func newReuserAt(version string, prev prevBuild, stats *BuildStats, recipe ...any) *reuser {
	prevDir := prev.dir
	h := sha256.New()
	fmt.Fprintf(h, "%s|%#v", version, recipe)
	r := &reuser{version: version, recipe: hex.EncodeToString(h.Sum(nil)), next: map[string]reuseEntry{}, stats: stats}
	if r.stats == nil {
		r.stats = &BuildStats{}
	}
	if prevDir == "" {
		return r
	}
	b, err := os.ReadFile(filepath.Join(prevDir, InputsFile))
	if err != nil {
		r.stats.Stale = fmt.Sprintf("it has no readable %s (built before incremental builds?)", InputsFile)
		return r
	}
	var doc inputsDoc
	switch {
	case json.Unmarshal(b, &doc) != nil:
		r.stats.Stale = fmt.Sprintf("its %s does not parse", InputsFile)
		return r
	case doc.Recipe == r.recipe:
	case doc.Version != version:
		v := doc.Version
		if v == "" {
			v = "older"
		}
		r.stats.Stale = fmt.Sprintf("built by another svc (build version %s, this one %s)", v, version)
		return r
	default:
		r.stats.Stale = "built with other options, height model or attribution"
		return r
	}
	for _, e := range doc.Tiles {
		for _, t := range e.Tiles {
			fixRegions(t)
		}
	}
	r.prevDir, r.prev, r.prevSums = prevDir, doc.Tiles, fileSums(prev.m)
	return r
}

// reuse links the files of the previous build's tile key into dir when its
// inputs hash equals inputs, records it, and returns it; ok is false when
// the tile must be built. A file that cannot be linked means building.
func (r *reuser) reuse(key, inputs, dir string) (reuseEntry, bool) {
	e, ok := r.prev[key]
	if !ok || e.Inputs != inputs {
		return e, false
	}
	var linked []string
	for theme, t := range e.Tiles {
		if t == nil || t.Content == nil {
			continue
		}
		rel := filepath.Join(theme, filepath.FromSlash(t.Content.URI))
		if err := pack.LinkOrCopy(filepath.Join(r.prevDir, rel), filepath.Join(dir, rel)); err != nil {
			// The links made so far go: building writes these paths, and
			// writing through a hard link would change the previous pack.
			for _, p := range linked {
				_ = os.Remove(p)
			}
			return e, false
		}
		linked = append(linked, filepath.Join(dir, rel))
		if fi := r.tellLinked(filepath.Join(r.prevDir, rel), filepath.Join(dir, rel), rel); fi != nil && theme == "" {
			e.size = fi.Size()
		}
	}
	r.record(key, e)
	r.stats.Reused.Add(1)
	return e, true
}

// linkSame links the previous build's file rel (slash-separated, relative
// to the pack) into dir when its SHA-256 in the previous manifest is that
// of data, and reports whether it did; the caller writes data otherwise.
func (r *reuser) linkSame(dir, rel string, data []byte) bool {
	sum := r.prevSums[rel]
	if sum == "" {
		return false
	}
	if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
		return false
	}
	src, dst := filepath.Join(r.prevDir, filepath.FromSlash(rel)), filepath.Join(dir, filepath.FromSlash(rel))
	if err := pack.LinkOrCopy(src, dst); err != nil {
		return false
	}
	r.tellLinked(src, dst, rel)
	return true
}

// tellLinked passes a file linked from the previous pack, with the SHA-256
// its manifest lists, to r.linked, and returns the file's info (nil when
// it was not told).
func (r *reuser) tellLinked(src, dst, rel string) os.FileInfo {
	sum := r.prevSums[filepath.ToSlash(rel)]
	if r.linked == nil || sum == "" {
		return nil
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil
	}
	r.linked(dst, fi, sum)
	return fi
}

// reuseSources is reuse by the hash of the tile's source files, before
// reading them; "" never matches.
func (r *reuser) reuseSources(key, sources, dir string) (reuseEntry, bool) {
	e, ok := r.prev[key]
	if !ok || sources == "" || e.Sources != sources {
		return e, false
	}
	return r.reuse(key, e.Inputs, dir)
}

// built records a tile this build computed.
func (r *reuser) built(key string, e reuseEntry) {
	r.record(key, e)
	r.stats.Built.Add(1)
}

func (r *reuser) record(key string, e reuseEntry) {
	r.mu.Lock()
	r.next[key] = e
	r.mu.Unlock()
}

// write stores this build's InputsFile in dir (keys sorted: the same
// bytes whatever the order tiles finished in).
func (r *reuser) write(dir string) error {
	b, err := marshalInputs(inputsDoc{Version: r.version, Recipe: r.recipe, Tiles: r.next})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, InputsFile), b, 0o644)
}

// inputHash hashes a tile's inputs: call its methods, then sum.
type inputHash struct{ h hash.Hash }

func newInputHash(parts ...any) *inputHash {
	ih := &inputHash{h: sha256.New()}
	fmt.Fprintf(ih.h, "%#v", parts)
	return ih
}

func (ih *inputHash) floats32(v []float32) {
	var b [4]byte
	buf := make([]byte, 0, 4096)
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		buf = append(buf, b[:]...)
		if len(buf) == cap(buf) {
			ih.h.Write(buf)
			buf = buf[:0]
		}
	}
	ih.h.Write(buf)
}

func (ih *inputHash) floats64(v []float64) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		ih.h.Write(b[:])
	}
}

func (ih *inputHash) str(s string) {
	fmt.Fprintf(ih.h, "%d:%s", len(s), s)
}

func (ih *inputHash) sum() string { return hex.EncodeToString(ih.h.Sum(nil)) }

// modelPrint fingerprints a height model for the recipe: its ID (an
// operator's grid is named by its file name only) and its undulation on a
// 0.25 degree lattice over Germany, so a changed grid file under the same
// name is not mistaken for the old one.
func modelPrint(hm *geoid.Model) string {
	ih := newInputHash(hm.ID())
	var v []float64
	for lat := 47.0; lat <= 55.5; lat += 0.25 {
		for lon := 5.5; lon <= 15.5; lon += 0.25 {
			n, ok := hm.Undulation(lon, lat)
			if !ok {
				n = math.NaN()
			}
			v = append(v, n)
		}
	}
	ih.floats64(v)
	return ih.sum()
}

// fixRegions turns the regions of tiles read back from JSON ([]any) into
// []float64, as the tileset writers expect.
func fixRegions(t *tileJSON) {
	if t == nil {
		return
	}
	if r, ok := t.BoundingVolume["region"].([]any); ok {
		f := make([]float64, len(r))
		for i, x := range r {
			f[i], _ = x.(float64)
		}
		t.BoundingVolume["region"] = f
	}
	for _, c := range t.Children {
		fixRegions(c)
	}
}

// prevBuild is the newest published pack of a build product of a BL: its
// directory ("" when there is none) and manifest, read once.
type prevBuild struct {
	dir string
	m   pack.Manifest
}

// previousBuild finds the newest published pack of a build product of the
// BL.
func previousBuild(dataDir string, prod pack.Product, bl string) prevBuild {
	m, dir, err := newestPack(dataDir, prod, bl, func(pack.Manifest) bool { return true })
	if err != nil {
		return prevBuild{}
	}
	return prevBuild{dir: dir, m: m}
}

// rasterKey is what a tile of a raster layer is computed from, by source
// file (see rasterKeys).
type rasterKey struct {
	// sources hashes the tile and the files its lattice can read; "" when
	// a file's SHA-256 is unknown.
	sources string
	// own hashes the tile, its lattice and its own file only; it is set
	// when no other tile covers a point of the lattice inside its boundary
	// (the usual grid of tiles that touch at their edges), so that own and
	// the boundary's samples (edgeHash) determine every sample. "" when
	// tiles overlap or the file's SHA-256 is unknown.
	own string
}

// rasterKey returns the key of tile i (zero when keys are not computed).
func (r *reuser) rasterKey(i int) rasterKey {
	if i < len(r.rasterKeys) {
		return r.rasterKeys[i]
	}
	return rasterKey{}
}

// tileLattice is the sample lattice of tile t with gridSize samples per
// edge (0: gridFor its pixel size): from its north-west corner over the
// longer of its edges.
func tileLattice(t terrain.Tile, gridSize int) lattice {
	edge := math.Max(t.BBox[2]-t.BBox[0], t.BBox[3]-t.BBox[1])
	n := gridSize
	if n == 0 {
		n = gridFor(edge, t.PixelM)
	}
	return lattice{x0: t.BBox[0], y0: t.BBox[3], step: edge / float64(n-1), n: n}
}

// box is the lattice's extent: minX, minY, maxX, maxY.
func (l lattice) box() [4]float64 {
	x1, y1 := l.at(l.n-1, l.n-1)
	return [4]float64{l.x0, y1, x1, l.y0}
}

// coversInside tells whether box b holds a lattice point off the
// lattice's boundary.
func (l lattice) coversInside(b [4]float64) bool {
	col, row := false, false
	for k := 1; k < l.n-1 && !(col && row); k++ {
		x, y := l.at(k, k)
		col = col || (x >= b[0] && x <= b[2])
		row = row || (y >= b[1] && y <= b[3])
	}
	return col && row
}

// rasterKeys returns the keys of the tiles of a raster layer sampled on
// tileLattice(tile, gridSize): sources hashes the source files its lattice
// can read (the tiles whose box meets its closed box: edge points fall in
// the neighbours), by name and SHA-256 from files (pack path -> SHA-256);
// own hashes its own file. Tiles are bucketed by 1 km cells, so this is
// linear in the tiles.
func rasterKeys(tiles []terrain.Tile, files map[string]string, gridSize int) []rasterKey {
	cells := map[[2]int][]int{}
	span := func(b [4]float64) (int, int, int, int) {
		return int(math.Floor(b[0] / 1000)), int(math.Floor(b[1] / 1000)), int(math.Floor(b[2] / 1000)), int(math.Floor(b[3] / 1000))
	}
	meeting := func(b [4]float64, skip int) []int {
		x0, y0, x1, y1 := span(b)
		seen := map[int]bool{}
		var out []int
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				for _, j := range cells[[2]int{x, y}] {
					o := tiles[j].BBox
					if j != skip && !seen[j] && o[0] <= b[2] && o[2] >= b[0] && o[1] <= b[3] && o[3] >= b[1] {
						seen[j] = true
						out = append(out, j)
					}
				}
			}
		}
		sort.Ints(out)
		return out
	}
	for i, t := range tiles {
		x0, y0, x1, y1 := span(t.BBox)
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				cells[[2]int{x, y}] = append(cells[[2]int{x, y}], i)
			}
		}
	}
	out := make([]rasterKey, len(tiles))
	for i, t := range tiles {
		ih := newInputHash(t.Name, t.BBox, t.PixelM)
		ok := true
		for _, j := range meeting(t.BBox, -1) {
			sum := files[tiles[j].Path]
			if sum == "" {
				ok = false
				break
			}
			ih.str(tiles[j].Name)
			ih.floats64(tiles[j].BBox[:])
			ih.str(sum)
		}
		if ok {
			out[i].sources = ih.sum()
		}
		l := tileLattice(t, gridSize)
		own := files[t.Path] != ""
		for _, j := range meeting(l.box(), i) {
			if l.coversInside(tiles[j].BBox) {
				own = false
				break
			}
		}
		if own {
			oh := newInputHash("own", t.Name, t.BBox, t.PixelM, l.x0, l.y0, l.step, l.n)
			oh.str(files[t.Path])
			out[i].own = oh.sum()
		}
	}
	return out
}

// fileSums maps the paths of a manifest's files to their SHA-256.
func fileSums(m pack.Manifest) map[string]string {
	out := make(map[string]string, len(m.Files))
	for _, f := range m.Files {
		out[f.Path] = f.SHA256
	}
	return out
}
