package tiles3d

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/rtin"
	"github.com/svc-geodata/svc/terrain"
)

// TerrainMeshOptions configure BuildTerrainMesh.
type TerrainMeshOptions struct {
	DataDir    string
	BL         string
	ToleranceM float64 // maximum vertical error of the mesh against the samples (default 0.5)
	// GridSize is the samples per tile edge, 2^k + 1. The default (0) is the
	// smallest such size whose spacing is at most the tile's pixel size
	// (1025 for a 1 km tile of 1 m pixels): every DGM pixel then holds at
	// least one lattice point, where the mesh is within the tolerance of
	// that pixel's value.
	GridSize int
	Workers  int // tiles meshed concurrently (default runtime.NumCPU())
	Cache    *raster.Cache
	Progress func(done, total int64)
	Now      func() time.Time
	// HeightModel lifts DHHN2016 heights to ellipsoidal ones (default: the
	// embedded GCG2016, geoid.Default).
	HeightModel *geoid.Model
	// Copyright is set from the terrain pack's attribution.
	Copyright string
	// Stats, when set, counts the tiles meshed and those reused from the
	// BL's previous terrain mesh (same sampled heights and options).
	Stats *BuildStats
}

// terrainColor is the base colour of the terrain mesh (linear RGB): a
// neutral earth tone that land cover drapes over.
var terrainColor = [4]float64{0.48, 0.45, 0.38, 1}

// BuildTerrainMesh writes the terrain mesh pack of the newest published
// terrain snapshot of o.BL: per DGM tile one b3dm with a Draco-compressed
// RTIN mesh whose vertical error against the sampled grid is at most
// ToleranceM, and a quadtree of empty tiles over them (see writeGrouped),
// in tileset.json and external tilesets under SubDir. Heights
// are ellipsoidal: DHHN2016 as the DGM has them plus the height model's
// undulation (the same as the building tilesets, so both fit together). NoData
// samples (water) are filled with the lowest valid height of their tile, a
// flat water surface; tiles without any valid sample are left out.
func BuildTerrainMesh(ctx context.Context, o TerrainMeshOptions) (pack.Manifest, error) {
	if o.ToleranceM <= 0 || math.IsNaN(o.ToleranceM) {
		o.ToleranceM = 0.5
	}
	if n := o.GridSize; n != 0 && (n < 3 || (n-1)&(n-2) != 0 || n > rtin.MaxSize) {
		return pack.Manifest{}, fmt.Errorf("tiles3d: grid size %d is not 2^k+1 (3..%d)", n, rtin.MaxSize)
	}
	o.Workers = workers(o.Workers)
	if o.Now == nil {
		o.Now = time.Now
	}
	o.HeightModel = heightModel(o.HeightModel)
	src, dir, err := newestPack(o.DataDir, pack.Terrain, o.BL, func(m pack.Manifest) bool { return m.Terrain != nil })
	if err != nil {
		return pack.Manifest{}, err
	}
	o.Copyright = withCredit(src.AttributionText(), o.HeightModel)
	if err := checkCovers(o.HeightModel, src.BBoxWGS84); err != nil {
		return pack.Manifest{}, err
	}
	ds, layer, err := openDGM(ctx, dir, src, o.Cache)
	if err != nil {
		return pack.Manifest{}, err
	}
	defer ds.Close()
	prevDir := previousBuild(o.DataDir, pack.TerrainMesh, src.BL)
	w, err := pack.Create(o.DataDir, pack.Key{Product: pack.TerrainMesh, BL: src.BL, Snapshot: src.Snapshot})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	defer w.Abort()
	ru := newReuser(prevDir, o.Stats, "terrain-mesh", o.ToleranceM, o.GridSize, modelPrint(o.HeightModel), o.Copyright)
	ru.rasterKeys = rasterKeys(layer.Tiles(), fileSums(src), o.GridSize)
	ru.linked = w.Reuse // linked tiles keep the previous manifest's SHA-256: Commit does not read them
	children, err := meshTiles(ctx, layer, ds.Zone, w.Dir(), o, ru)
	if err != nil {
		return pack.Manifest{}, err
	}
	if err := ru.write(w.Dir()); err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	if len(children) == 0 {
		return pack.Manifest{}, fmt.Errorf("%w: terrain pack %s has no valid samples", ErrNoSource, src.Key())
	}
	multi, err := writeTerrainTileset(filepath.Join(w.Dir(), "tileset.json"), children, o.HeightModel.ID(), o.Copyright)
	if err != nil {
		return pack.Manifest{}, err
	}
	scheme := "single-level-quadtree"
	if multi {
		scheme = "multi-level-quadtree"
	}
	m := pack.Manifest{LicenseID: src.LicenseID, Name: src.Name, SourceURL: src.SourceURL, SourceName: src.SourceName,
		Attribution: src.Attribution, CRS: src.CRS, BBoxWGS84: src.BBoxWGS84, HeightModel: o.HeightModel.ID(),
		TerrainMesh: &pack.TerrainMeshInfo{TilesetPath: "tileset.json", TileCount: int64(len(children)),
			RTINToleranceM: o.ToleranceM, TilingScheme: scheme, BuiltAt: o.Now().UTC().Truncate(time.Second)}}
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	return m, nil
}

// meshTiles meshes every DGM tile concurrently and returns their tiles in
// tile order.
func meshTiles(ctx context.Context, layer *terrain.Layer, z geo.Zone, dir string, o TerrainMeshOptions, ru *reuser) ([]*tileJSON, error) {
	tiles := layer.Tiles()
	out := make([]*tileJSON, len(tiles))
	if err := os.MkdirAll(filepath.Join(dir, "tiles"), 0o755); err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Workers)
	var mu sync.Mutex
	var done int64
	for i := range tiles {
		g.Go(func() error {
			tj, err := meshTile(gctx, layer, z, i, dir, o, ru)
			if err != nil {
				return fmt.Errorf("tiles3d: terrain tile %s: %w", tiles[i].Name, err)
			}
			out[i] = tj
			mu.Lock()
			done++
			if o.Progress != nil {
				o.Progress(done, int64(len(tiles)))
			}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var kept []*tileJSON
	for _, t := range out {
		if t != nil {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// meshTile samples one DGM tile on an n x n grid, meshes it and writes its
// b3dm, or links the previous build's when the samples are the same. It
// returns nil for a tile without valid samples. A tile is reused without
// reading anything when its source files are unchanged; when only a
// neighbour's file changed (its own did not: the own key of rasterKeys),
// only the lattice's boundary is sampled, the one part a neighbour can
// give (see edgeHash); the rest of the lattice is read only when that
// differs too.
func meshTile(ctx context.Context, layer *terrain.Layer, z geo.Zone, i int, dir string, o TerrainMeshOptions, ru *reuser) (*tileJSON, error) {
	t := layer.Tiles()[i]
	key := ru.rasterKey(i)
	if e, ok := ru.reuseSources(t.Name, key.sources, dir); ok {
		return e.Tiles[""], nil
	}
	lat := tileLattice(t, o.GridSize)
	n, step := lat.n, lat.step
	edge := math.Max(t.BBox[2]-t.BBox[0], t.BBox[3]-t.BBox[1])
	if prev, ok := ru.prev[t.Name]; ok && key.own != "" && prev.Own == key.own && prev.Edge != "" {
		edgeSum, err := sampleEdge(ctx, layer, lat)
		if err != nil {
			return nil, err
		}
		if edgeSum == prev.Edge {
			if e, ok := ru.reuse(t.Name, prev.Inputs, dir); ok {
				e.Sources, e.Own, e.Edge = key.sources, key.own, edgeSum
				ru.record(t.Name, e)
				ru.stats.Edge.Add(1)
				return e.Tiles[""], nil
			}
		}
	}
	heights, valid, err := sampleLattice(ctx, layer, lat)
	if err != nil {
		return nil, err
	}
	edgeSum := ""
	if key.own != "" {
		edgeSum = edgeHash(lat, func(r, c int) (float32, bool) { return heights[r*n+c], valid[r*n+c] })
	}
	if !fillNoData(heights, valid) {
		return nil, nil
	}
	ih := newInputHash(t.Name, t.BBox, n)
	ih.floats32(heights)
	inputs := ih.sum()
	if e, ok := ru.reuse(t.Name, inputs, dir); ok {
		e.Sources, e.Own, e.Edge = key.sources, key.own, edgeSum
		ru.record(t.Name, e)
		return e.Tiles[""], nil
	}
	tj, err := meshHeights(t, z, heights, n, edge, step, dir, o)
	if err != nil {
		return nil, err
	}
	ru.built(t.Name, reuseEntry{Inputs: inputs, Sources: key.sources, Own: key.own, Edge: edgeSum, Tiles: map[string]*tileJSON{"": tj}})
	return tj, nil
}

// meshHeights meshes the sampled heights of DGM tile t and writes its
// b3dm.
func meshHeights(t terrain.Tile, z geo.Zone, heights []float32, n int, edge, step float64, dir string, o TerrainMeshOptions) (*tileJSON, error) {
	mesh, err := rtin.MeshFor(rtin.Grid{Size: n, Heights: heights}, o.ToleranceM)
	if err != nil {
		return nil, err
	}
	cx, cy := t.BBox[0]+edge/2, t.BBox[3]-edge/2
	pos, nrm, idx, hmin, hmax := meshArrays(mesh, heights, n, t.BBox[0]-cx, t.BBox[3]-cy, step)
	data, err := glb.EncodeMesh(glb.MeshInput{Name: "terrain " + t.Name, Pos: pos, Nrm: nrm, Idx: idx, BaseColor: terrainColor,
		Draco: true, Copyright: o.Copyright})
	if err != nil {
		return nil, err
	}
	name := "tiles/" + t.Name + ".b3dm"
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), glb.B3DM(data), 0o644); err != nil {
		return nil, err
	}
	abs, nlo, nhi, err := lift(gridFrame(z, cx, cy), o.HeightModel, z, cx, cy, edge/2)
	if err != nil {
		return nil, err
	}
	region := regionOf(z, t.BBox[0], t.BBox[3]-edge, t.BBox[0]+edge, t.BBox[3], hmin+nlo, hmax+nhi)
	return &tileJSON{
		Transform:      abs.matrix(),
		BoundingVolume: map[string]any{"region": region[:]},
		GeometricError: 0,
		Content:        &contentJSON{URI: name},
	}, nil
}

// gridFor is the smallest 2^k + 1 lattice with a spacing of at most pixelM
// over edge metres (at most rtin.MaxSize).
func gridFor(edge, pixelM float64) int {
	if pixelM <= 0 {
		pixelM = edge / 512
	}
	n := 2
	for n < rtin.MaxSize-1 && float64(n) < math.Ceil(edge/pixelM-1e-9) {
		n *= 2
	}
	return n + 1
}

// lattice is the n x n sample points of a tile: column c, row r is at
// (x0 + c*step, y0 - r*step).
type lattice struct {
	x0, y0, step float64
	n            int
}

func (l lattice) at(r, c int) (x, y float64) {
	return l.x0 + float64(c)*l.step, l.y0 - float64(r)*l.step
}

// sample reads the DGM at a lattice point; ok is false for NoData and
// uncovered points.
func sample(ctx context.Context, layer *terrain.Layer, x, y float64) (float32, bool, error) {
	v, _, err := layer.Sample(ctx, x, y)
	if errors.Is(err, terrain.ErrNoData) || errors.Is(err, terrain.ErrOutside) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return float32(v), true, nil
}

// sampleGrid reads n x n heights from (x0, y0) going east and south by step.
// NoData and uncovered samples become the lowest valid height; ok is false
// when there is none.
func sampleGrid(ctx context.Context, layer *terrain.Layer, x0, y0, step float64, n int) ([]float32, bool, error) {
	heights, valid, err := sampleLattice(ctx, layer, lattice{x0: x0, y0: y0, step: step, n: n})
	if err != nil {
		return nil, false, err
	}
	if !fillNoData(heights, valid) {
		return nil, false, nil
	}
	return heights, true, nil
}

// sampleLattice reads the heights of the lattice row by row; valid is false
// where sample found no value (the height is then 0).
func sampleLattice(ctx context.Context, layer *terrain.Layer, l lattice) (heights []float32, valid []bool, err error) {
	n := l.n
	heights, valid = make([]float32, n*n), make([]bool, n*n)
	for r := range n {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for c := range n {
			x, y := l.at(r, c)
			if heights[r*n+c], valid[r*n+c], err = sample(ctx, layer, x, y); err != nil {
				return nil, nil, err
			}
		}
	}
	return heights, valid, nil
}

// fillNoData sets the heights without a valid sample to the lowest valid
// one (a flat water surface); false when there is none.
func fillNoData(heights []float32, valid []bool) bool {
	lowest := float32(math.Inf(1))
	for k, ok := range valid {
		if ok {
			lowest = min(lowest, heights[k])
		}
	}
	if math.IsInf(float64(lowest), 1) {
		return false
	}
	for k, ok := range valid {
		if !ok {
			heights[k] = lowest
		}
	}
	return true
}

// edgeHash hashes the samples on the boundary of the lattice (first and
// last row, first and last column; value and validity) as at returns
// them. With rasterKeys' own key it determines the whole lattice: every
// other point lies only in the tile's own file (see rasterKeys).
func edgeHash(l lattice, at func(r, c int) (float32, bool)) string {
	n := l.n
	buf := make([]byte, 0, 4*n*5)
	put := func(r, c int) {
		v, ok := at(r, c)
		if !ok {
			buf = append(buf, 0, 0, 0, 0, 0)
			return
		}
		buf = binary.LittleEndian.AppendUint32(append(buf, 1), math.Float32bits(v))
	}
	for c := range n {
		put(0, c)
		put(n-1, c)
	}
	for r := 1; r < n-1; r++ {
		put(r, 0)
		put(r, n-1)
	}
	ih := newInputHash("edge", l.x0, l.y0, l.step, n)
	ih.h.Write(buf)
	return ih.sum()
}

// sampleEdge samples only the boundary of the lattice and returns its
// edgeHash.
func sampleEdge(ctx context.Context, layer *terrain.Layer, l lattice) (string, error) {
	var err error
	sum := edgeHash(l, func(r, c int) (float32, bool) {
		if err != nil {
			return 0, false
		}
		x, y := l.at(r, c)
		var v float32
		var ok bool
		v, ok, err = sample(ctx, layer, x, y)
		return v, ok
	})
	return sum, err
}

// meshArrays turns the RTIN into glTF arrays: positions relative to the
// tile centre in glTF's Y-up frame (x east, y up, z south), smooth vertex
// normals, and triangles counter-clockwise seen from above.
func meshArrays(m rtin.Mesh, heights []float32, n int, dx0, dy0, step float64) (pos, nrm []float32, idx []uint32, hmin, hmax float64) {
	hmin, hmax = math.Inf(1), math.Inf(-1)
	zup := make([][3]float64, len(m.Vertices))
	for k, v := range m.Vertices {
		h := float64(heights[v[1]*n+v[0]])
		zup[k] = [3]float64{dx0 + float64(v[0])*step, dy0 - float64(v[1])*step, h}
		hmin, hmax = math.Min(hmin, h), math.Max(hmax, h)
	}
	normals := make([][3]float64, len(zup))
	idx = make([]uint32, 0, len(m.Triangles))
	for t := 0; t < len(m.Triangles); t += 3 {
		// RTIN rows grow southward, so its order is clockwise seen from above.
		a, b, c := m.Triangles[t], m.Triangles[t+2], m.Triangles[t+1]
		idx = append(idx, a, b, c)
		p, q, r := zup[a], zup[b], zup[c]
		u := [3]float64{q[0] - p[0], q[1] - p[1], q[2] - p[2]}
		w := [3]float64{r[0] - p[0], r[1] - p[1], r[2] - p[2]}
		fn := [3]float64{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}
		for _, k := range []uint32{a, b, c} {
			for j := range 3 {
				normals[k][j] += fn[j]
			}
		}
	}
	pos = make([]float32, 0, 3*len(zup))
	nrm = make([]float32, 0, 3*len(zup))
	for k, p := range zup {
		nv := normals[k]
		l := math.Sqrt(nv[0]*nv[0] + nv[1]*nv[1] + nv[2]*nv[2])
		if l == 0 {
			nv, l = [3]float64{0, 0, 1}, 1
		}
		// Z-up (x, y, z) is glTF Y-up (x, z, -y).
		pos = append(pos, float32(p[0]), float32(p[2]), float32(-p[1]))
		nrm = append(nrm, float32(nv[0]/l), float32(nv[2]/l), float32(-nv[1]/l))
	}
	return pos, nrm, idx, hmin, hmax
}

// writeTerrainTileset writes the terrain mesh's tileset: the DGM tiles in
// the quadtree of writeGrouped.
func writeTerrainTileset(path string, children []*tileJSON, heightModel, attribution string) (bool, error) {
	_, multi, err := writeGrouped(path, children, assetOf("1.0", "svc terrain-mesh", heightModel, attribution))
	return multi, err
}

// writeTilesetOf is the same tileset for GLB content (3D Tiles 1.1).
func writeTilesetOf(path string, children []*tileJSON, heightModel, attribution, generator string) error {
	_, _, err := writeGrouped(path, children, assetOf("1.1", generator, heightModel, attribution))
	return err
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// openDGM opens the terrain pack in dir for a build (with buildCache) and
// returns its DGM layer; the caller closes the dataset.
func openDGM(ctx context.Context, dir string, m pack.Manifest, cache *raster.Cache) (*terrain.Dataset, *terrain.Layer, error) {
	ds, err := terrain.OpenPack(ctx, dir, m, terrain.Options{Cache: buildCache(cache)})
	if err != nil {
		return nil, nil, fmt.Errorf("tiles3d: %w", err)
	}
	layer := ds.Layer(terrain.LayerDGM)
	if layer == nil {
		ds.Close()
		return nil, nil, fmt.Errorf("%w: terrain pack %s has no DGM layer", ErrNoSource, m.Key())
	}
	return ds, layer, nil
}
