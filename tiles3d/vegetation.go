package tiles3d

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// Vegetation 3D Tiles themes (SPEC 2.10).
const (
	ThemeTrees      = "trees"
	ThemePlantcover = "plantcover"
)

// HardenedSince is the first snapshot whose plantcover follows the hardened
// recipe of SPEC 2.10 (COLOR_0, no curtains) in the BL of HardenedPlantcover.
const HardenedSince = "2026-07-20"

// HardenedPlantcover reports whether the plantcover of a BL snapshot
// follows the hardened recipe of SPEC 2.10: be, he and ni from
// HardenedSince (snapshots are YYYY-MM-DD, so they compare as strings).
func HardenedPlantcover(bl, snapshot string) bool {
	return (bl == "be" || bl == "he" || bl == "ni") && snapshot >= HardenedSince
}

// VegetationOptions configure WriteVegetation.
type VegetationOptions struct {
	// DataDir is searched for the newest published terrain pack of BL,
	// whose DGM gives the ground height; without one the ground is at
	// height 0 (trees stand and crowns float at their height above ground).
	DataDir      string
	BL, Snapshot string
	Zone         geo.Zone
	// Tiles are the CDSM tiles, their paths relative to the pack directory.
	Tiles []terrain.Tile
	// ToleranceM is the plantcover RTIN's maximum vertical error (default
	// 0.5 m) against the sampled lattice.
	ToleranceM float64
	Trees      TreeOptions
	Workers    int // tiles built concurrently (default runtime.NumCPU())
	Cache      *raster.Cache
	// HeightModel lifts DHHN2016 heights to ellipsoidal ones (default: the
	// embedded GCG2016, geoid.Default).
	HeightModel *geoid.Model
	// Attribution is written into every tile (asset.copyright) and tileset.
	Attribution string
	// BBoxWGS84 is the pack's extent, over which the height model must hold.
	BBoxWGS84 []float64
	// Progress, when set, is called with the CDSM tiles done and their
	// total (from the worker goroutines, one at a time).
	Progress func(done, total int64)
	// Stats, when set, counts the CDSM tiles built and those reused from
	// the BL's previous vegetation pack (same canopy, ground and options).
	Stats *BuildStats
	// Linked, when set, is told of each tile file hard-linked from the
	// previous vegetation pack with the SHA-256 its manifest lists: pass
	// the pack's pack.Writer.Reuse, so its Commit does not read them again.
	Linked func(path string, src os.FileInfo, sha256 string)
}

// VegetationResult is what WriteVegetation wrote.
type VegetationResult struct {
	Themes []pack.Theme // trees and plantcover, kind 3dtiles
	Trees  int64        // tree instances over all tiles
	// TerrainSnapshot is the snapshot of the terrain pack the ground came
	// from; empty when the ground is at 0.
	TerrainSnapshot string
	Hardened        bool // plantcover with COLOR_0 and no curtains
	HeightModel     string
}

// WriteVegetation writes the trees and plantcover themes of a vegetation
// pack into dir (the pack's directory, the CDSM tiles already in it):
// per CDSM tile one glb of instanced trees (EXT_mesh_gpu_instancing, 3D
// Tiles 1.1 glb content) under trees/tiles/ and one b3dm of the
// Draco-compressed plantcover RTIN under plantcover/tiles/, each theme with
// a quadtree tileset.json (writeGrouped). Tiles without trees or vegetation are left
// out; a theme keeps its tileset.json with a content-less root even when
// no tile has content. Heights are ellipsoidal like the terrain mesh's:
// DHHN2016 from the DGM plus the height model's undulation. Errors name the tile.
func WriteVegetation(ctx context.Context, dir string, o VegetationOptions) (VegetationResult, error) {
	if o.ToleranceM <= 0 || math.IsNaN(o.ToleranceM) {
		o.ToleranceM = 0.5
	}
	o.Workers = workers(o.Workers)
	o.HeightModel = heightModel(o.HeightModel)
	o.Attribution = withCredit(o.Attribution, o.HeightModel)
	if err := checkCovers(o.HeightModel, o.BBoxWGS84); err != nil {
		return VegetationResult{}, err
	}
	res := VegetationResult{Hardened: HardenedPlantcover(o.BL, o.Snapshot), HeightModel: o.HeightModel.ID()}
	var dgm *terrain.Layer
	if src, tdir, err := newestPack(o.DataDir, pack.Terrain, o.BL, func(m pack.Manifest) bool { return m.Terrain != nil }); err == nil {
		o.Cache = buildCache(o.Cache)
		ds, err := terrain.OpenPack(ctx, tdir, src, terrain.Options{Cache: o.Cache})
		if err != nil {
			return res, fmt.Errorf("tiles3d: %w", err)
		}
		defer ds.Close()
		if ds.Zone != o.Zone {
			return res, fmt.Errorf("tiles3d: terrain pack %s is in zone %d, vegetation in %d", src.Key(), ds.Zone, o.Zone)
		}
		dgm, res.TerrainSnapshot = ds.Layer(terrain.LayerDGM), src.Snapshot
	} else if !errors.Is(err, ErrNoSource) {
		return res, err
	}
	for _, th := range []string{ThemeTrees, ThemePlantcover} {
		if err := os.MkdirAll(filepath.Join(dir, th, "tiles"), 0o755); err != nil {
			return res, fmt.Errorf("tiles3d: %w", err)
		}
	}
	ru := newReuser(previousBuild(o.DataDir, pack.Vegetation, o.BL), o.Stats, "vegetation", o.ToleranceM,
		fmt.Sprintf("%+v", o.Trees.withDefaults()), res.Hardened, modelPrint(o.HeightModel), o.Attribution, o.Zone)
	ru.linked = o.Linked
	trees, cover, n, err := vegTiles(ctx, dir, dgm, o, res.Hardened, ru)
	if err != nil {
		return res, err
	}
	if err := ru.write(dir); err != nil {
		return res, fmt.Errorf("tiles3d: %w", err)
	}
	res.Trees = n
	for _, th := range []struct {
		name, version string
		tiles         []*tileJSON
	}{{ThemeTrees, "1.1", trees}, {ThemePlantcover, "1.0", cover}} {
		rel := th.name + "/" + TilesetFile
		if err := writeFlatTileset(filepath.Join(dir, filepath.FromSlash(rel)), th.tiles,
			assetOf(th.version, "svc vegetation "+th.name, o.HeightModel.ID(), o.Attribution)); err != nil {
			return res, fmt.Errorf("tiles3d: %w", err)
		}
		res.Themes = append(res.Themes, pack.Theme{Name: th.name, Kind: "3dtiles", Path: rel, TileCount: int64(len(th.tiles))})
	}
	return res, nil
}

// vegTiles builds every CDSM tile concurrently and returns the trees and
// plantcover tiles with content, in tile order, and the trees written.
func vegTiles(ctx context.Context, dir string, dgm *terrain.Layer, o VegetationOptions, hardened bool, ru *reuser) (trees, cover []*tileJSON, n int64, err error) {
	tt := make([]*tileJSON, len(o.Tiles))
	ct := make([]*tileJSON, len(o.Tiles))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Workers)
	var mu sync.Mutex
	var done int64
	for i, t := range o.Tiles {
		g.Go(func() error {
			a, b, k, err := vegTile(gctx, dir, t, dgm, o, hardened, ru)
			if err != nil {
				return fmt.Errorf("tiles3d: vegetation tile %s: %w", t.Name, err)
			}
			tt[i], ct[i] = a, b
			mu.Lock()
			n += int64(k)
			done++
			if o.Progress != nil {
				o.Progress(done, int64(len(o.Tiles)))
			}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, 0, err
	}
	for i := range o.Tiles {
		if tt[i] != nil {
			trees = append(trees, tt[i])
		}
		if ct[i] != nil {
			cover = append(cover, ct[i])
		}
	}
	return trees, cover, n, nil
}

// vegTile reads one CDSM tile, samples the ground on its lattice and writes
// its trees glb and plantcover b3dm, or links the previous pack's when
// canopy and ground are the same; either tile is nil without content.
func vegTile(ctx context.Context, dir string, t terrain.Tile, dgm *terrain.Layer, o VegetationOptions, hardened bool, ru *reuser) (*tileJSON, *tileJSON, int, error) {
	if t.Path == "" {
		return nil, nil, 0, fmt.Errorf("%w: CDSM tile without a local file", ErrNoSource)
	}
	g, err := readGrid(ctx, filepath.Join(dir, filepath.FromSlash(t.Path)), o.Cache)
	if err != nil {
		return nil, nil, 0, err
	}
	edge := math.Max(t.BBox[2]-t.BBox[0], t.BBox[3]-t.BBox[1])
	n := gridFor(edge, t.PixelM)
	l := plantLattice{n: n, step: edge / float64(n-1), ground: make([]float32, n*n)}
	x0, y0 := t.BBox[0], t.BBox[3]
	if dgm != nil {
		heights, ok, err := sampleGrid(ctx, dgm, x0, y0, l.step, n)
		if err != nil {
			return nil, nil, 0, err
		}
		if ok {
			l.ground = heights
		}
	}
	ih := newInputHash(t.Name, t.BBox, n, g.Width, g.Height, g.GeoTransform, g.Nodata != nil && !math.IsNaN(*g.Nodata), nodataOf(g))
	ih.floats32(g.Data)
	ih.floats32(l.ground)
	inputs := ih.sum()
	if e, ok := ru.reuse(t.Name, inputs, dir); ok {
		return e.Tiles[ThemeTrees], e.Tiles[ThemePlantcover], int(e.Count), nil
	}
	cx, cy := x0+edge/2, y0-edge/2
	tops := DetectTrees(g, o.Trees)
	trees, err := writeTrees(dir, t.Name, tops, l, x0, y0, cx, cy, o)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	l.canopy = canopyLattice(g, x0, y0, l.step, n)
	cover, err := writePlantcover(dir, t.Name, l, x0, y0, cx, cy, o, hardened)
	if err != nil {
		return nil, nil, 0, err
	}
	e := reuseEntry{Inputs: inputs, Tiles: map[string]*tileJSON{}, Count: int64(len(tops))}
	if trees != nil {
		e.Tiles[ThemeTrees] = trees
	}
	if cover != nil {
		e.Tiles[ThemePlantcover] = cover
	}
	ru.built(t.Name, e)
	return trees, cover, len(tops), nil
}

// nodataOf is the grid's NoData value, 0 without one.
func nodataOf(g raster.Grid) float64 {
	if g.Nodata == nil {
		return 0
	}
	return *g.Nodata
}

// readGrid reads a whole local COG.
func readGrid(ctx context.Context, path string, cache *raster.Cache) (raster.Grid, error) {
	f, err := raster.OpenFile(path)
	if err != nil {
		return raster.Grid{}, err
	}
	defer f.Close()
	c, err := raster.Open(ctx, f, cache)
	if err != nil {
		return raster.Grid{}, err
	}
	defer c.Close()
	return c.ReadGrid(ctx)
}

// groundAt interpolates the lattice's ground bilinearly at (x, y).
func (l plantLattice) groundAt(x0, y0, x, y float64) float64 {
	fx := math.Min(math.Max((x-x0)/l.step, 0), float64(l.n-1))
	fy := math.Min(math.Max((y0-y)/l.step, 0), float64(l.n-1))
	c, r := min(int(fx), l.n-2), min(int(fy), l.n-2)
	tx, ty := fx-float64(c), fy-float64(r)
	at := func(c, r int) float64 { return float64(l.ground[r*l.n+c]) }
	return (1-ty)*((1-tx)*at(c, r)+tx*at(c+1, r)) + ty*((1-tx)*at(c, r+1)+tx*at(c+1, r+1))
}

// writeTrees writes the instanced trees of a tile; nil without trees.
func writeTrees(dir, name string, tops []TreeTop, l plantLattice, x0, y0, cx, cy float64, o VegetationOptions) (*tileJSON, error) {
	if len(tops) == 0 {
		return nil, nil
	}
	trees := make([]glb.Tree, len(tops))
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	hmin, hmax := math.Inf(1), math.Inf(-1)
	for i, tp := range tops {
		gz := l.groundAt(x0, y0, tp.X, tp.Y)
		// Z-up (dx, dy, h) is glTF Y-up (dx, h, -dy).
		trees[i] = glb.Tree{Pos: [3]float32{float32(tp.X - cx), float32(gz), float32(cy - tp.Y)},
			HeightM: float32(tp.HeightM), CrownRadiusM: float32(tp.CrownRadiusM)}
		r := tp.CrownRadiusM
		minX, minY, maxX, maxY = math.Min(minX, tp.X-r), math.Min(minY, tp.Y-r), math.Max(maxX, tp.X+r), math.Max(maxY, tp.Y+r)
		hmin, hmax = math.Min(hmin, gz), math.Max(hmax, gz+tp.HeightM)
	}
	data, err := glb.TreesGLB(trees, o.Attribution)
	if err != nil {
		return nil, err
	}
	rel := "tiles/" + name + ".glb"
	if err := os.WriteFile(filepath.Join(dir, ThemeTrees, filepath.FromSlash(rel)), data, 0o644); err != nil {
		return nil, err
	}
	z := o.Zone
	abs, nlo, nhi, err := lift(gridFrame(z, cx, cy), o.HeightModel, z, cx, cy, math.Max(maxX-minX, maxY-minY)/2)
	if err != nil {
		return nil, err
	}
	region := regionOf(z, minX, minY, maxX, maxY, hmin+nlo, hmax+nhi)
	return &tileJSON{Transform: abs.matrix(), BoundingVolume: map[string]any{"region": region[:]},
		Content: &contentJSON{URI: rel}}, nil
}

// writePlantcover meshes and writes the plantcover b3dm of a tile; nil
// without vegetation.
func writePlantcover(dir, name string, l plantLattice, x0, y0, cx, cy float64, o VegetationOptions, hardened bool) (*tileJSON, error) {
	z := o.Zone
	m, surf, err := plantMesh(l, o.ToleranceM, hardened)
	if err != nil || len(m.Triangles) == 0 {
		return nil, err
	}
	pos, nrm, idx, hmin, hmax := meshArrays(m, surf, l.n, x0-cx, y0-cy, l.step)
	in := glb.MeshInput{Name: "plantcover " + name, Pos: pos, Nrm: nrm, Idx: idx, BaseColor: plantColor, Draco: true, Copyright: o.Attribution}
	if hardened {
		in.Colors, in.BaseColor = plantColors(m, l), [4]float64{1, 1, 1, 1}
	}
	// The mesh's extent is taken before the encoding, so that the RTIN
	// mesh is garbage while the encoder works (about 16 MB per worker).
	minC, minR, maxC, maxR := l.n, l.n, 0, 0
	for _, v := range m.Vertices {
		minC, minR, maxC, maxR = min(minC, v[0]), min(minR, v[1]), max(maxC, v[0]), max(maxR, v[1])
	}
	data, err := glb.EncodeMesh(in)
	if err != nil {
		return nil, err
	}
	rel := "tiles/" + name + ".b3dm"
	if err := os.WriteFile(filepath.Join(dir, ThemePlantcover, filepath.FromSlash(rel)), glb.B3DM(data), 0o644); err != nil {
		return nil, err
	}
	edge := float64(l.n-1) * l.step
	abs, nlo, nhi, err := lift(gridFrame(z, cx, cy), o.HeightModel, z, cx, cy, edge/2)
	if err != nil {
		return nil, err
	}
	region := regionOf(z, x0+float64(minC)*l.step, y0-float64(maxR)*l.step, x0+float64(maxC)*l.step, y0-float64(minR)*l.step, hmin+nlo, hmax+nhi)
	return &tileJSON{Transform: abs.matrix(), BoundingVolume: map[string]any{"region": region[:]},
		Content: &contentJSON{URI: rel}}, nil
}

// plantColor is the plantcover's base colour (linear RGB) without COLOR_0.
var plantColor = [4]float64{0.18, 0.40, 0.14, 1}

// writeFlatTileset writes a theme's tileset: its tiles in the quadtree of
// writeGrouped. Without children the root has an empty region at 0 and no
// children.
func writeFlatTileset(path string, children []*tileJSON, asset map[string]any) error {
	if len(children) > 0 {
		_, _, err := writeGrouped(path, children, asset)
		return err
	}
	doc := tilesetJSON{Asset: asset, GeometricError: 50,
		Root: &tileJSON{BoundingVolume: map[string]any{"region": []float64{0, 0, 0, 0, 0, 0}}, GeometricError: 50, Refine: "REPLACE"}}
	_, err := writeDoc(path, doc)
	return err
}
