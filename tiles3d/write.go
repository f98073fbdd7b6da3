package tiles3d

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// TilesetFile is the name of the tileset JSON in the pack.
const TilesetFile = "tileset.json"

// write builds every leaf's glb and the tileset JSON into dir.
// sol, when set, gives the roofs their solar values (see tileSolar).
func write(ctx context.Context, st *lod2store.LoD2, sol *tileSolar, dir string, o Options, attribution string, ru *reuser) (pack.TilesetInfo, error) {
	// Footprint boxes of unchanged source files from the previous build
	// (see ExtentsFile).
	ext, err := buildingExtents(ctx, st, ru.buildings, readExtents(ru.prevDir, ru.prevSums[ExtentsFile]), ru.stats)
	if err != nil {
		return pack.TilesetInfo{}, fmt.Errorf("tiles3d: %w", err)
	}
	if len(ext) == 0 {
		return pack.TilesetInfo{}, fmt.Errorf("%w: the LoD2 pack has no buildings", ErrNoSource)
	}
	if err := writeExtents(dir, ru.buildings, ext); err != nil {
		return pack.TilesetInfo{}, err
	}
	// Leaves hold the buildings of one source file each (see quadtree).
	root := quadtree(ext, ru.buildings.filesOf(ext), o.MaxPerTile)
	zone := st.Zone()
	rootE, rootN := root.minX+root.size/2, root.minY+root.size/2
	rootM := frameAt(zone, rootE, rootN)
	if err := os.MkdirAll(filepath.Join(dir, "tiles"), 0o755); err != nil {
		return pack.TilesetInfo{}, fmt.Errorf("tiles3d: %w", err)
	}
	leaves := root.leaves(nil)
	var mu sync.Mutex
	var done, total, bytes int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Workers)
	for _, c := range leaves {
		g.Go(func() error {
			n, size, err := leaf(gctx, st, sol, dir, c, ext, o.HeightModel, attribution, ru)
			mu.Lock()
			defer mu.Unlock()
			done += int64(len(c.ids))
			total += n
			bytes += size
			if o.Progress != nil {
				o.Progress(done, int64(len(ext)))
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return pack.TilesetInfo{}, err
	}
	if err := ru.write(dir); err != nil {
		return pack.TilesetInfo{}, fmt.Errorf("tiles3d: %w", err)
	}
	root.unionRegions()
	doc := tilesetDoc(root, rootM, o.HeightModel.ID(), attribution)
	doc.Schema = glb.BuildingClass()
	if sol != nil {
		doc.Schema = glb.SolarSchema()
		doc.Asset["extras"].(map[string]any)["solar"] = sol.assetSolar()
	}
	hs, err := writeHierarchyLinking(dir, TilesetFile, doc, func(rel string, data []byte) bool { return ru.linkSame(dir, rel, data) })
	if err != nil {
		return pack.TilesetInfo{}, err
	}
	r := root.region
	deg := 180 / math.Pi
	return pack.TilesetInfo{TilesetID: uuid.NewString(), TilesetPath: TilesetFile, TileCount: int64(len(leaves)),
		TotalBytes: bytes + hs.JSONBytes, BuildingCount: total,
		BoundingVolume: []float64{r[0] * deg, r[1] * deg, r[2] * deg, r[3] * deg}}, nil
}

// leaf links the previous build's glb when the leaf's source key (see
// buildingSources) or, failing that, the hash of its buildings' geometry
// is the same, else writes it (writeLeaf); it returns the buildings and
// the file size.
func leaf(ctx context.Context, st *lod2store.LoD2, sol *tileSolar, dir string, c *cell, ext []lod2store.BuildingExtent, hm *geoid.Model, attribution string, ru *reuser) (int64, int64, error) {
	key := fmt.Sprintf("%d/%d/%d", c.level, c.x, c.y)
	parts := []any{key, c.minX, c.minY, c.size, int(st.Zone())}
	if sol != nil {
		parts = append(parts, "solar", sol.sha) // an unchanged store gives the same values
	}
	sources := ru.buildings.key(c.ids, parts...)
	if e, ok := ru.reuseSources(key, sources, dir); ok {
		return reusedLeaf(dir, c, e)
	}
	ru.stats.Read.Add(1)
	ih := newInputHash(key, c.minX, c.minY, c.size, int(st.Zone()))
	// The buildings are kept (a leaf holds at most Options.MaxPerTile) so
	// that a leaf to build is read once, not again by writeLeaf.
	var kept []lod2store.Building3D
	var buf []byte
	err := st.BuildingGeometry(ctx, c.ids, func(bd *lod2store.Building3D) error {
		buf = appendBuildingInputs(buf[:0], bd)
		ih.h.Write(buf)
		kept = append(kept, cloneBuilding(bd))
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("tiles3d: tile %s: %w", key, err)
	}
	// The attributes go into the leaf's metadata: they are inputs too (a
	// changed attribute rebuilds the leaf).
	attrs := make(map[int64]*glb.Attrs, len(kept))
	err = st.BuildingAttributes(ctx, c.ids, func(a *lod2store.Attributes) error {
		ga := lod2store.GLBAttrs(a)
		attrs[a.BuildingID] = ga
		buf = appendAttrsInputs(buf[:0], a.BuildingID, ga)
		ih.h.Write(buf)
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("tiles3d: tile %s: %w", key, err)
	}
	// So are the roofs' solar values.
	var vals map[facetKey]*glb.Solar
	if sol != nil {
		if vals, buf, err = sol.values(ctx, kept, buf[:0]); err != nil {
			return 0, 0, fmt.Errorf("tiles3d: tile %s: %w", key, err)
		}
		ih.h.Write(buf)
	}
	inputs := ih.sum()
	if e, ok := ru.reuse(key, inputs, dir); ok {
		e.Sources = sources // same buildings from other files: key them by this build's
		ru.record(key, e)
		return reusedLeaf(dir, c, e)
	}
	n, size, err := writeLeaf(st.Zone(), dir, c, ext, hm, attribution, kept, attrs, vals)
	if err != nil {
		return 0, 0, err
	}
	ru.built(key, reuseEntry{Inputs: inputs, Sources: sources, Count: n, Tiles: map[string]*tileJSON{"": {Content: &contentJSON{URI: c.content},
		BoundingVolume: map[string]any{"region": c.region[:]}, Transform: c.abs.matrix()}}})
	return n, size, nil
}

// appendBuildingInputs appends what a leaf's inputs hash holds of building
// bd: its gml:id and id, and per surface its class, ring ends and
// coordinates, as inputHash.str and floats64 would write them one call at
// a time (the same bytes: a leaf's inputs key did not change, see
// TestBuildingInputsBytes), in one buffer instead of a hash write per
// coordinate and fmt per surface.
func appendBuildingInputs(b []byte, bd *lod2store.Building3D) []byte {
	str := func(b []byte, s []byte) []byte {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		return append(append(b, ':'), s...)
	}
	b = str(b, []byte(bd.GMLID))
	var num [20]byte
	b = str(b, strconv.AppendInt(num[:0], bd.BuildingID, 10))
	var sb []byte
	for _, s := range bd.Surfaces {
		// fmt.Sprint(s.Class, s.Ends): "3 [[0 12] [12 20]]"
		sb = strconv.AppendInt(sb[:0], int64(s.Class), 10)
		sb = append(sb, " ["...)
		for i, e := range s.Ends {
			if i > 0 {
				sb = append(sb, ' ')
			}
			sb = append(sb, '[')
			for j, v := range e {
				if j > 0 {
					sb = append(sb, ' ')
				}
				sb = strconv.AppendInt(sb, int64(v), 10)
			}
			sb = append(sb, ']')
		}
		b = str(b, append(sb, ']'))
		for _, x := range s.Flat {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// reusedLeaf takes the region, content and transform of a leaf linked
// from the previous build and returns its buildings and file size.
func reusedLeaf(dir string, c *cell, e reuseEntry) (int64, int64, error) {
	t := e.Tiles[""]
	size := e.size // the linked file's (a hard link: the same inode)
	if size == 0 {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(t.Content.URI)))
		if err != nil {
			return 0, 0, fmt.Errorf("tiles3d: %w", err)
		}
		size = fi.Size()
	}
	c.content, c.abs = t.Content.URI, frameOf(t.Transform)
	copy(c.region[:], t.BoundingVolume["region"].([]float64))
	return e.Count, size, nil
}

// cloneBuilding copies bd and its slices (BuildingGeometry reuses none of
// them today, but does not promise it).
func cloneBuilding(bd *lod2store.Building3D) lod2store.Building3D {
	out := lod2store.Building3D{BuildingID: bd.BuildingID, GMLID: bd.GMLID, Surfaces: make([]lod2store.Surface3D, len(bd.Surfaces))}
	for i, s := range bd.Surfaces {
		ends := make([][]int, len(s.Ends))
		for j, e := range s.Ends {
			ends[j] = append([]int(nil), e...)
		}
		out.Surfaces[i] = lod2store.Surface3D{SurfaceID: s.SurfaceID, Class: s.Class, Flat: append([]float64(nil), s.Flat...), Ends: ends}
	}
	return out
}

// writeLeaf writes the glb of one leaf of buildings bs (read by leaf),
// sets its region, content and transform, and returns the buildings
// written and the file size. A non-nil solar (even empty: a tileset with
// solar values) gives the leaf the roof_solar property attributes.
func writeLeaf(zone geo.Zone, dir string, c *cell, ext []lod2store.BuildingExtent, hm *geoid.Model, attribution string, bs []lod2store.Building3D,
	attrs map[int64]*glb.Attrs, solar map[facetKey]*glb.Solar) (int64, int64, error) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, id := range c.ids {
		e := extentOf(ext, id)
		minX, minY = math.Min(minX, e.MinX), math.Min(minY, e.MinY)
		maxX, maxY = math.Max(maxX, e.MaxX), math.Max(maxY, e.MaxY)
	}
	ce, cn := (minX+maxX)/2, (minY+maxY)/2
	b, err := glb.NewBuilder(glb.Options{Zone: int(zone), OriginE: ce, OriginN: cn, ZBase: glb.ZAbsolute, IncludeGround: true,
		MergeBuildings: true, Features: true, Solar: solar != nil, YUp: true, Copyright: attribution})
	if err != nil {
		return 0, 0, fmt.Errorf("tiles3d: %w", err)
	}
	minH, maxH := math.Inf(1), math.Inf(-1)
	var gb glb.Building
	for _, bd := range bs {
		gb.GMLID, gb.BuildingID, gb.Surfaces, gb.Attrs = bd.GMLID, bd.BuildingID, gb.Surfaces[:0], attrs[bd.BuildingID]
		for _, s := range bd.Surfaces {
			for i := 2; i < len(s.Flat); i += 3 {
				minH, maxH = math.Min(minH, s.Flat[i]), math.Max(maxH, s.Flat[i])
			}
			gb.Surfaces = append(gb.Surfaces, glb.Surface{Class: s.Class, Flat: s.Flat, Ends: s.Ends, Solar: surfaceSolar(solar, &s)})
		}
		if _, err := b.Add(&gb); err != nil {
			return 0, 0, fmt.Errorf("tiles3d: tile %d/%d/%d: %w", c.level, c.x, c.y, err)
		}
	}
	data, err := b.GLB()
	if err != nil {
		return 0, 0, fmt.Errorf("tiles3d: tile %d/%d/%d: %w", c.level, c.x, c.y, err)
	}
	c.content = fmt.Sprintf("tiles/%d_%d_%d.glb", c.level, c.x, c.y)
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(c.content)), data, 0o644); err != nil {
		return 0, 0, fmt.Errorf("tiles3d: %w", err)
	}
	if math.IsInf(minH, 0) {
		minH, maxH = 0, 0
	}
	abs, nlo, nhi, err := lift(gridFrame(zone, ce, cn), hm, zone, ce, cn, math.Max(maxX-minX, maxY-minY)/2)
	if err != nil {
		return 0, 0, err
	}
	c.region = regionOf(zone, minX, minY, maxX, maxY, minH+nlo, maxH+nhi)
	c.abs = abs
	return int64(b.Buildings()), int64(len(data)), nil
}

// extentOf finds the extent of building id in ext (sorted by id, as
// lod2store.Extents returns them): a search instead of a map by id, which
// would hold some 50 bytes per building of a state for the whole build.
func extentOf(ext []lod2store.BuildingExtent, id int64) lod2store.BuildingExtent {
	i, _ := slices.BinarySearchFunc(ext, id, func(e lod2store.BuildingExtent, id int64) int { return cmp.Compare(e.BuildingID, id) })
	return ext[i]
}

// appendAttrsInputs appends what a leaf's inputs hash holds of the
// metadata of building id: every value written, absent ones marked.
func appendAttrsInputs(b []byte, id int64, a *glb.Attrs) []byte {
	b = strconv.AppendInt(append(b, "attrs:"...), id, 10)
	for _, s := range []string{a.Function, a.FunctionLabel, a.RoofType, a.RoofTypeLabel, a.MunicipalityKey, a.CreationDate} {
		b = strconv.AppendInt(append(b, '|'), int64(len(s)), 10)
		b = append(append(b, ':'), s...)
	}
	for _, f := range []*float64{a.HeightM, a.GroundZM, a.RidgeZM, a.EavesZM, a.FootprintAreaM2, a.RoofAreaM2} {
		if f == nil {
			b = append(b, "|-"...)
			continue
		}
		b = binary.LittleEndian.AppendUint64(append(b, '|'), math.Float64bits(*f))
	}
	if a.Storeys == nil {
		return append(b, "|-"...)
	}
	return strconv.AppendInt(append(b, '|'), *a.Storeys, 10)
}
