package tiles3d

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/osmdata"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/rtin"
	"github.com/svc-geodata/svc/terrain"
)

// Offsets of the OSM cover above the terrain mesh (metres): land cover
// just above it, transport above land cover, so neither z-fights with the
// terrain nor with each other, and both stay within 0.5 m of the ground.
const (
	SurfaceOffsetM   = 0.2
	TransportOffsetM = 0.35
)

// OSMCoverOptions configure BuildOSMCover.
type OSMCoverOptions struct {
	DataDir string
	BL      string
	// StepM is the grid the areas are cut into so that their vertices
	// follow the terrain (default 10 m).
	StepM   float64
	Workers int // DGM tiles built concurrently (default runtime.NumCPU())
	Cache   *raster.Cache
	// HeightModel lifts DHHN2016 heights to ellipsoidal ones (default: the
	// embedded GCG2016, geoid.Default), as the terrain mesh does.
	HeightModel *geoid.Model
	Now         func() time.Time
	// Progress, when set, is called with the DGM tiles done and their
	// total (from the worker goroutines, one at a time).
	Progress func(done, total int64)
	// Stats, when set, counts the DGM tiles whose surface and transport
	// were built and those reused from the BL's previous OSM cover (same
	// ground, features and options).
	Stats *BuildStats
}

// classColors are the linear-RGB colours of the cover classes.
var classColors = map[string][3]uint8{
	"forest": {34, 100, 34}, "grass": {120, 180, 80}, "meadow": {150, 190, 90}, "farmland": {210, 200, 120},
	"scrub": {110, 150, 70}, "park": {90, 170, 90}, "water": {60, 120, 200}, "wetland": {100, 150, 160},
	"residential": {205, 190, 185}, "commercial": {225, 180, 190}, "industrial": {190, 170, 200}, "retail": {230, 170, 170},
	"square": {200, 200, 200}, "parking": {170, 170, 170}, "sport": {140, 200, 140}, "cemetery": {150, 180, 150},
	"hedge": {50, 120, 50}, "beach": {240, 225, 170}, "sea": {40, 90, 170},
}

func colorOf(class string) [3]uint8 {
	if c, ok := classColors[class]; ok {
		return c
	}
	switch {
	case len(class) > 8 && class[:8] == "railway:":
		return [3]uint8{120, 110, 100}
	case class == "highway:footway" || class == "highway:path" || class == "highway:steps" || class == "highway:cycleway" || class == "highway:track":
		return [3]uint8{215, 205, 185}
	}
	return [3]uint8{90, 90, 95}
}

// BuildOSMCover writes the osm-cover pack of the newest osm pack of o.BL
// (SPEC 2.9): the themes surface (land-cover areas), transport (roads,
// paths and rails as ribbons of their width; bridges at deck height between
// their ends, tunnels left out), sea (flat at 0 m DHHN2016, for a BL whose
// extract has coastline) and canopy (the BL's vegetation surface from its
// CDSM, when it has a vegetation pack). Areas and ribbons are cut on a
// StepM grid and every vertex lies SurfaceOffsetM or TransportOffsetM above
// the terrain mesh (the RTIN that BuildTerrainMesh builds from the same
// DGM). Each DGM tile gives one GLB per theme with per-feature metadata.
// Errors wrap ErrNoSource when the BL has no osm or no terrain pack.
func BuildOSMCover(ctx context.Context, o OSMCoverOptions) (pack.Manifest, error) {
	if o.StepM <= 0 {
		o.StepM = 10
	}
	o.Workers = workers(o.Workers)
	if o.Now == nil {
		o.Now = time.Now
	}
	o.HeightModel = heightModel(o.HeightModel)
	src, srcDir, err := newestPack(o.DataDir, pack.OSM, o.BL, func(m pack.Manifest) bool { return m.OSM != nil })
	if err != nil {
		return pack.Manifest{}, err
	}
	tsrc, tdir, err := newestPack(o.DataDir, pack.Terrain, o.BL, func(m pack.Manifest) bool { return m.Terrain != nil })
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("%w (the OSM cover is draped on it)", err)
	}
	tol := 0.5
	if tm, _, err := newestPack(o.DataDir, pack.TerrainMesh, o.BL, func(m pack.Manifest) bool { return m.TerrainMesh != nil }); err == nil {
		tol = tm.TerrainMesh.RTINToleranceM
	}
	if err := checkCovers(o.HeightModel, tsrc.BBoxWGS84); err != nil {
		return pack.Manifest{}, err
	}
	ds, layer, err := openDGM(ctx, tdir, tsrc, o.Cache)
	if err != nil {
		return pack.Manifest{}, err
	}
	defer ds.Close()
	prevDir := previousBuild(o.DataDir, pack.OSMCover, src.BL)
	w, err := pack.Create(o.DataDir, pack.Key{Product: pack.OSMCover, BL: src.BL, Snapshot: src.Snapshot})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	defer w.Abort()
	// The features wait on disk in the pack's directory (removed before
	// the commit; Abort removes it on failure): memory holds their index.
	spill, err := newFeatureSpill(filepath.Join(w.Dir(), ".features.spill"))
	if err != nil {
		return pack.Manifest{}, err
	}
	defer spill.close()
	b := &coverBuild{o: o, z: ds.Zone, layer: layer, tol: tol, dir: w.Dir(), spill: spill, copyright: withCredit(osmdata.Attribution, o.HeightModel)}
	b.cells, b.bridgeZ, b.bridgeH = map[[2]int][]int32{}, map[int]func(x, y float64) float64{}, map[int][2]float64{}
	var coast [][][2]float64
	var seaPolys [][][][2]float64
	if err := osmdata.ReadFile(filepath.Join(srcDir, filepath.FromSlash(src.OSM.File)), func(f osmdata.Feature) error {
		switch f.Theme {
		case osmdata.ThemeCoastline:
			coast = append(coast, f.Lines...)
		case osmdata.ThemeSea:
			seaPolys = append(seaPolys, f.Polygons...)
		case osmdata.ThemeSurface, osmdata.ThemeTransport:
			return b.add(ctx, &f)
		}
		return nil
	}); err != nil {
		return pack.Manifest{}, err
	}
	if err := spill.done(); err != nil {
		return pack.Manifest{}, err
	}
	b.ru = newReuser(prevDir, o.Stats, "osm-cover", o.StepM, tol, modelPrint(o.HeightModel), b.copyright, int(b.z))
	b.ru.linked = w.Reuse // linked tiles keep the previous manifest's SHA-256: Commit does not read them
	var themes []pack.Theme
	for _, th := range []string{osmdata.ThemeSurface, osmdata.ThemeTransport} {
		if err := os.MkdirAll(filepath.Join(w.Dir(), th, "tiles"), 0o755); err != nil {
			return pack.Manifest{}, err
		}
	}
	children, err := b.dgmTiles(ctx)
	if err != nil {
		return pack.Manifest{}, err
	}
	if err := b.ru.write(w.Dir()); err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	for _, th := range []string{osmdata.ThemeSurface, osmdata.ThemeTransport} {
		n, err := b.writeTheme(th, children[th])
		if err != nil {
			return pack.Manifest{}, err
		}
		themes = append(themes, pack.Theme{Name: th, Path: th + "/tileset.json", TileCount: n})
	}
	if n, err := b.canopy(ctx); err != nil {
		return pack.Manifest{}, err
	} else if n > 0 {
		themes = append(themes, pack.Theme{Name: "canopy", Path: "canopy/tileset.json", TileCount: n})
	}
	if src.OSM.Sea == nil && len(coast) > 0 {
		// A pack imported before the import built the sea: close the
		// coastline on the clip box.
		box := utmBox(unionBBox(src.BBoxWGS84, tsrc.BBoxWGS84), b.z)
		if c := src.OSM.ClipUTM; len(c) == 4 {
			box = osmdata.Box{MinX: c[0], MinY: c[1], MaxX: c[2], MaxY: c[3]}
		}
		if box.MaxX > box.MinX {
			seaPolys = osmdata.SeaPolygons(coast, box)
		}
	}
	if len(seaPolys) > 0 {
		n, err := b.sea(ctx, seaPolys)
		if err != nil {
			return pack.Manifest{}, err
		}
		if n > 0 {
			themes = append(themes, pack.Theme{Name: "sea", Path: "sea/tileset.json", TileCount: n})
		}
	}
	if err := spill.close(); err != nil {
		return pack.Manifest{}, err
	}
	m := pack.Manifest{LicenseID: "odbl-1.0", Name: src.Name, SourceURL: src.SourceURL, SourceName: "OpenStreetMap",
		Attribution: osmdata.Attribution, CRS: src.CRS, BBoxWGS84: src.BBoxWGS84, HeightModel: o.HeightModel.ID(),
		OSMCover: &pack.OSMCoverInfo{Themes: themes, BuiltAt: o.Now().UTC().Truncate(time.Second)}}
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	return m, nil
}

func unionBBox(a, b []float64) []float64 {
	switch {
	case len(a) != 4:
		return b
	case len(b) != 4:
		return a
	}
	return []float64{math.Min(a[0], b[0]), math.Min(a[1], b[1]), math.Max(a[2], b[2]), math.Max(a[3], b[3])}
}

// coverBuild is one BuildOSMCover run.
type coverBuild struct {
	o         OSMCoverOptions
	z         geo.Zone
	layer     *terrain.Layer
	tol       float64
	dir       string
	spill     *featureSpill      // the surface and transport features, by index
	bounds    [][4]float64       // per feature: minX, minY, maxX, maxY
	cells     map[[2]int][]int32 // 1 km cells -> features meeting them
	copyright string
	mu        sync.Mutex
	bridgeZ   map[int]func(x, y float64) float64 // deck height of bridge features
	bridgeH   map[int][2]float64                 // ground at both ends of bridge features
	hashes    [][32]byte                         // per feature: its content's SHA-256
	ru        *reuser
}

// add spills a surface or transport feature and indexes it: its content
// hash, its bounds in the 1 km cells they meet, and a bridge's deck.
func (b *coverBuild) add(ctx context.Context, f *osmdata.Feature) error {
	i, err := b.spill.add(f)
	if err != nil {
		return err
	}
	b.hashes = append(b.hashes, featureHash(f))
	bb := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	see := func(p [2]float64) {
		bb[0], bb[1] = math.Min(bb[0], p[0]), math.Min(bb[1], p[1])
		bb[2], bb[3] = math.Max(bb[2], p[0]), math.Max(bb[3], p[1])
	}
	for _, p := range f.Polygons {
		for _, q := range p[0] {
			see(q)
		}
	}
	for _, l := range f.Lines {
		for _, q := range l {
			see(q)
		}
	}
	pad := f.WidthM
	bb = [4]float64{bb[0] - pad, bb[1] - pad, bb[2] + pad, bb[3] + pad}
	b.bounds = append(b.bounds, bb)
	for cx := int(math.Floor(bb[0] / 1000)); cx <= int(math.Floor(bb[2]/1000)); cx++ {
		for cy := int(math.Floor(bb[1] / 1000)); cy <= int(math.Floor(bb[3]/1000)); cy++ {
			b.cells[[2]int{cx, cy}] = append(b.cells[[2]int{cx, cy}], i)
		}
	}
	b.bridge(ctx, int(i), f)
	return nil
}

// near lists the features whose bounds meet the box.
func (b *coverBuild) near(box osmdata.Box) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for cx := int(math.Floor(box.MinX / 1000)); cx <= int(math.Floor((box.MaxX-1e-9)/1000)); cx++ {
		for cy := int(math.Floor(box.MinY / 1000)); cy <= int(math.Floor((box.MaxY-1e-9)/1000)); cy++ {
			for _, i := range b.cells[[2]int{cx, cy}] {
				bb := b.bounds[i]
				if !seen[i] && bb[0] <= box.MaxX && bb[2] >= box.MinX && bb[1] <= box.MaxY && bb[3] >= box.MinY {
					seen[i] = true
					out = append(out, i)
				}
			}
		}
	}
	return out
}

// groundMesh is the terrain mesh of one DGM tile as heights on its
// lattice (the RTIN's triangles rasterised), so any point's height on the
// mesh is a bilinear lookup.
type groundMesh struct {
	x0, y0, step float64
	n            int
	h            []float32
}

// groundOf meshes the n x n heights sampled over DGM tile t as the
// terrain mesh does and rasterises the mesh on the lattice.
func (b *coverBuild) groundOf(t terrain.Tile, heights []float32, n int) (*groundMesh, error) {
	edge := math.Max(t.BBox[2]-t.BBox[0], t.BBox[3]-t.BBox[1])
	step := edge / float64(n-1)
	mesh, err := rtin.MeshFor(rtin.Grid{Size: n, Heights: heights}, b.tol)
	if err != nil {
		return nil, err
	}
	g := &groundMesh{x0: t.BBox[0], y0: t.BBox[3], step: step, n: n, h: make([]float32, n*n)}
	for k := 0; k < len(mesh.Triangles); k += 3 {
		var v [3][2]int
		var hv [3]float64
		for j := range 3 {
			v[j] = mesh.Vertices[mesh.Triangles[k+j]]
			hv[j] = float64(heights[v[j][1]*n+v[j][0]])
		}
		minC, maxC := min(v[0][0], v[1][0], v[2][0]), max(v[0][0], v[1][0], v[2][0])
		minR, maxR := min(v[0][1], v[1][1], v[2][1]), max(v[0][1], v[1][1], v[2][1])
		det := float64((v[1][1]-v[2][1])*(v[0][0]-v[2][0]) + (v[2][0]-v[1][0])*(v[0][1]-v[2][1]))
		if det == 0 {
			continue
		}
		for r := minR; r <= maxR; r++ {
			for c := minC; c <= maxC; c++ {
				l0 := float64((v[1][1]-v[2][1])*(c-v[2][0])+(v[2][0]-v[1][0])*(r-v[2][1])) / det
				l1 := float64((v[2][1]-v[0][1])*(c-v[2][0])+(v[0][0]-v[2][0])*(r-v[2][1])) / det
				l2 := 1 - l0 - l1
				if l0 < -1e-9 || l1 < -1e-9 || l2 < -1e-9 {
					continue
				}
				g.h[r*n+c] = float32(l0*hv[0] + l1*hv[1] + l2*hv[2])
			}
		}
	}
	return g, nil
}

// at is the mesh height at x, y (bilinear between lattice points, which
// within one lattice cell is the mesh to millimetres).
func (g *groundMesh) at(x, y float64) float64 {
	u := math.Min(math.Max((x-g.x0)/g.step, 0), float64(g.n-1)-1e-9)
	v := math.Min(math.Max((g.y0-y)/g.step, 0), float64(g.n-1)-1e-9)
	c, r := int(u), int(v)
	c1, r1 := min(c+1, g.n-1), min(r+1, g.n-1)
	fu, fv := u-float64(c), v-float64(r)
	h00, h10 := float64(g.h[r*g.n+c]), float64(g.h[r*g.n+c1])
	h01, h11 := float64(g.h[r1*g.n+c]), float64(g.h[r1*g.n+c1])
	return (h00*(1-fu)+h10*fu)*(1-fv) + (h01*(1-fu)+h11*fu)*fv
}

// meshBuf collects the triangles of one theme in one tile.
type meshBuf struct {
	pos  [][3]float64 // x, y (UTM) and height (DHHN2016)
	idx  []uint32
	fid  []float32
	col  []uint8
	feat map[int32]float32 // feature -> local feature id
	// class, osm id and name of each local feature id
	class, name []string
	osmID       []int64
}

func newMeshBuf() *meshBuf { return &meshBuf{feat: map[int32]float32{}} }

// featureID is the local feature id of feature i (ft), numbered as they
// first come.
func (m *meshBuf) featureID(i int32, ft *osmdata.Feature) float32 {
	if f, ok := m.feat[i]; ok {
		return f
	}
	f := float32(len(m.osmID))
	m.feat[i] = f
	m.class, m.osmID, m.name = append(m.class, ft.Class), append(m.osmID, ft.ID), append(m.name, ft.Name)
	return f
}

// addPolygon triangulates rings (exterior first) lying in the xy plane and
// adds them with the heights h gives, facing up.
func (m *meshBuf) addPolygon(rings [][][2]float64, h func(x, y float64) float64, fid float32, col [3]uint8) error {
	var flat []float64
	var ends []int
	for _, r := range rings {
		pts := r
		if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
			pts = pts[:len(pts)-1]
		}
		for _, p := range pts {
			flat = append(flat, p[0], p[1], 0)
		}
		ends = append(ends, len(flat))
	}
	if len(ends) == 0 || ends[0] < 9 {
		return nil
	}
	tri, err := glb.Triangulate(flat, ends, nil)
	if err != nil || len(tri) == 0 {
		return nil // a degenerate piece: nothing to draw
	}
	base := uint32(len(m.pos))
	for k := 0; k < len(flat); k += 3 {
		x, y := flat[k], flat[k+1]
		m.pos = append(m.pos, [3]float64{x, y, h(x, y)})
		m.fid = append(m.fid, fid)
		m.col = append(m.col, col[0], col[1], col[2], 255)
	}
	for k := 0; k < len(tri); k += 3 {
		a, bb, c := tri[k], tri[k+1], tri[k+2]
		pa, pb, pc := flat[3*a:3*a+2], flat[3*bb:3*bb+2], flat[3*c:3*c+2]
		if (pb[0]-pa[0])*(pc[1]-pa[1])-(pb[1]-pa[1])*(pc[0]-pa[0]) < 0 {
			bb, c = c, bb
		}
		m.idx = append(m.idx, base+a, base+bb, base+c)
	}
	return nil
}

// drape cuts a polygon (already within the tile) on the step grid and adds
// each piece with vertices on the ground plus offset.
func (m *meshBuf) drape(rings [][][2]float64, step float64, g *groundMesh, offset float64, fid float32, col [3]uint8) error {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range rings[0] {
		minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
		minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
	}
	h := func(x, y float64) float64 { return g.at(x, y) + offset }
	for y0 := math.Floor(minY/step) * step; y0 < maxY; y0 += step {
		strip := osmdata.Box{MinX: minX, MinY: y0, MaxX: maxX, MaxY: y0 + step}
		sr := clipRings(rings, strip)
		if sr == nil {
			continue
		}
		for x0 := math.Floor(minX/step) * step; x0 < maxX; x0 += step {
			cr := clipRings(sr, osmdata.Box{MinX: x0, MinY: y0, MaxX: x0 + step, MaxY: y0 + step})
			if cr == nil {
				continue
			}
			if err := m.addPolygon(cr, h, fid, col); err != nil {
				return err
			}
		}
	}
	return nil
}

// clipRings clips a polygon's rings to a box; nil when the exterior goes.
func clipRings(rings [][][2]float64, box osmdata.Box) [][][2]float64 {
	outer := box.Ring(rings[0])
	if len(outer) < 4 {
		return nil
	}
	out := [][][2]float64{outer}
	for _, r := range rings[1:] {
		if c := box.Ring(r); len(c) >= 4 {
			out = append(out, c)
		}
	}
	return out
}

// ribbon turns a line into quads of the given width, one per segment.
func ribbon(l [][2]float64, width float64) [][][][2]float64 {
	var out [][][][2]float64
	half := width / 2
	for i := 1; i < len(l); i++ {
		a, c := l[i-1], l[i]
		dx, dy := c[0]-a[0], c[1]-a[1]
		d := math.Hypot(dx, dy)
		if d == 0 {
			continue
		}
		nx, ny := -dy/d*half, dx/d*half
		out = append(out, [][][2]float64{{{a[0] - nx, a[1] - ny}, {c[0] - nx, c[1] - ny}, {c[0] + nx, c[1] + ny}, {a[0] + nx, a[1] + ny}, {a[0] - nx, a[1] - ny}}})
	}
	return out
}

// dgmTiles builds the surface and transport content of every DGM tile.
func (b *coverBuild) dgmTiles(ctx context.Context) (map[string][]*tileJSON, error) {
	tiles := b.layer.Tiles()
	out := map[string][]*tileJSON{}
	slots := make([]map[string]*tileJSON, len(tiles))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.o.Workers)
	var done int64
	for i := range tiles {
		g.Go(func() error {
			r, err := b.dgmTile(gctx, tiles[i])
			slots[i] = r
			if b.o.Progress != nil && err == nil {
				b.mu.Lock()
				done++
				b.o.Progress(done, int64(len(tiles)))
				b.mu.Unlock()
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, s := range slots {
		for th, t := range s {
			out[th] = append(out[th], t)
		}
	}
	return out, nil
}

// bridge fixes the deck height of feature i when it is a bridge: linear
// between the ground at its two ends (plus the transport offset), along
// its length.
func (b *coverBuild) bridge(ctx context.Context, i int, f *osmdata.Feature) {
	if !f.Bridge || f.Tunnel || len(f.Lines) == 0 {
		return
	}
	l := f.Lines[0]
	a, c := l[0], l[len(l)-1]
	ha, erra := b.dem(ctx, a[0], a[1])
	hc, errc := b.dem(ctx, c[0], c[1])
	if erra != nil || errc != nil {
		return // an end off the DGM: drape it like a road
	}
	b.bridgeH[i] = [2]float64{ha, hc}
	dx, dy := c[0]-a[0], c[1]-a[1]
	l2 := dx*dx + dy*dy
	b.bridgeZ[i] = func(x, y float64) float64 {
		t := 0.0
		if l2 > 0 {
			t = math.Min(1, math.Max(0, ((x-a[0])*dx+(y-a[1])*dy)/l2))
		}
		return ha + t*(hc-ha) + TransportOffsetM
	}
}

func (b *coverBuild) dem(ctx context.Context, x, y float64) (float64, error) {
	v, _, err := b.layer.Sample(ctx, x, y)
	return v, err
}

func (b *coverBuild) dgmTile(ctx context.Context, t terrain.Tile) (map[string]*tileJSON, error) {
	box := osmdata.Box{MinX: t.BBox[0], MinY: t.BBox[1], MaxX: t.BBox[2], MaxY: t.BBox[3]}
	near := b.near(box)
	if len(near) == 0 {
		return nil, nil
	}
	edge := math.Max(t.BBox[2]-t.BBox[0], t.BBox[3]-t.BBox[1])
	n := gridFor(edge, t.PixelM)
	heights, ok, err := sampleGrid(ctx, b.layer, t.BBox[0], t.BBox[3], edge/float64(n-1), n)
	if err != nil || !ok {
		return nil, err
	}
	ih := newInputHash(t.Name, t.BBox, n)
	ih.floats32(heights)
	for _, i := range near {
		ih.h.Write(b.hashes[i][:])
		if h, ok := b.bridgeH[int(i)]; ok {
			ih.floats64(h[:])
		}
	}
	inputs := ih.sum()
	if e, ok := b.ru.reuse(t.Name, inputs, b.dir); ok {
		return e.Tiles, nil
	}
	g, err := b.groundOf(t, heights, n)
	if err != nil {
		return nil, err
	}
	out, err := b.coverTile(t, box, near, g)
	if err != nil {
		return nil, err
	}
	b.ru.built(t.Name, reuseEntry{Inputs: inputs, Tiles: out})
	return out, nil
}

// coverTile drapes the features near DGM tile t on its ground mesh and
// writes its surface and transport GLBs.
func (b *coverBuild) coverTile(t terrain.Tile, box osmdata.Box, near []int32, g *groundMesh) (map[string]*tileJSON, error) {
	surf, trans := newMeshBuf(), newMeshBuf()
	for _, i := range near {
		ft, err := b.spill.at(i)
		if err != nil {
			return nil, err
		}
		f := &ft
		switch f.Theme {
		case osmdata.ThemeSurface:
			fid := float32(-1)
			for _, p := range f.Polygons {
				r := clipRings(p, box)
				if r == nil {
					continue
				}
				if fid < 0 {
					fid = surf.featureID(i, f)
				}
				if err := surf.drape(r, b.o.StepM, g, SurfaceOffsetM, fid, colorOf(f.Class)); err != nil {
					return nil, err
				}
			}
		case osmdata.ThemeTransport:
			if f.Tunnel {
				continue
			}
			deck := b.bridgeZ[int(i)]
			for _, l := range f.Lines {
				for _, q := range ribbon(l, f.WidthM) {
					if deck != nil {
						// A bridge's quads go to the tile of their first
						// corner, whole: the deck is not draped.
						p := q[0][0]
						if p[0] < box.MinX || p[0] >= box.MaxX || p[1] < box.MinY || p[1] >= box.MaxY {
							continue
						}
						if err := trans.addPolygon(q, deck, trans.featureID(i, f), colorOf(f.Class)); err != nil {
							return nil, err
						}
						continue
					}
					r := clipRings(q, box)
					if r == nil {
						continue
					}
					if err := trans.drape(r, b.o.StepM, g, TransportOffsetM, trans.featureID(i, f), colorOf(f.Class)); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	out := map[string]*tileJSON{}
	edge := math.Max(t.BBox[2]-t.BBox[0], t.BBox[3]-t.BBox[1])
	for th, m := range map[string]*meshBuf{osmdata.ThemeSurface: surf, osmdata.ThemeTransport: trans} {
		tj, err := b.writeTile(th, t.Name, m, t.BBox[0]+edge/2, t.BBox[3]-edge/2)
		if err != nil {
			return nil, err
		}
		if tj != nil {
			out[th] = tj
		}
	}
	return out, nil
}

// writeTile encodes one theme's triangles of one tile as a GLB in the
// frame at the tile's centre cx, cy, lifted to ellipsoidal heights: for a
// DGM tile the frame of its terrain-mesh tile, so both share coordinates.
func (b *coverBuild) writeTile(theme, name string, m *meshBuf, cx, cy float64) (*tileJSON, error) {
	if len(m.idx) == 0 {
		return nil, nil
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	hmin, hmax := math.Inf(1), math.Inf(-1)
	for _, p := range m.pos {
		minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
		minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
		hmin, hmax = math.Min(hmin, p[2]), math.Max(hmax, p[2])
	}
	pos := make([]float32, 0, 3*len(m.pos))
	nrm := make([]float32, 0, 3*len(m.pos))
	for _, p := range m.pos {
		// Z-up (x, y, z) is glTF Y-up (x, z, -y); the cover is seen from
		// above, its normal is up.
		pos = append(pos, float32(p[0]-cx), float32(p[2]), float32(-(p[1] - cy)))
		nrm = append(nrm, 0, 1, 0)
	}
	in := glb.FeatureMeshInput{MeshInput: glb.MeshInput{Name: theme + " " + name, Copyright: b.copyright, Pos: pos, Nrm: nrm,
		Idx: m.idx, Colors: m.col, BaseColor: [4]float64{1, 1, 1, 1}}, FeatureIDs: m.fid,
		SchemaID: "svc_osm_cover", ClassName: theme, Class: m.class, OSMID: m.osmID, Name: m.name}
	data, err := glb.EncodeFeatureMesh(in)
	if err != nil {
		return nil, err
	}
	uri := "tiles/" + name + ".glb"
	if err := os.WriteFile(filepath.Join(b.dir, theme, filepath.FromSlash(uri)), glb.Pad8(data), 0o644); err != nil {
		return nil, err
	}
	half := math.Max(math.Max(maxX-cx, cx-minX), math.Max(maxY-cy, cy-minY))
	abs, nlo, nhi, err := lift(gridFrame(b.z, cx, cy), b.o.HeightModel, b.z, cx, cy, half)
	if err != nil {
		return nil, err
	}
	region := regionOf(b.z, minX, minY, maxX, maxY, hmin+nlo-0.5, hmax+nhi+0.5)
	return &tileJSON{Transform: abs.matrix(), BoundingVolume: map[string]any{"region": region[:]}, GeometricError: 0,
		Content: &contentJSON{URI: uri}}, nil
}

// writeTheme writes a theme's tileset.json and returns its tile count.
func (b *coverBuild) writeTheme(theme string, children []*tileJSON) (int64, error) {
	if len(children) == 0 {
		// An empty theme still gets a valid tileset: a root without content.
		children = nil
	}
	return int64(len(children)), writeCoverTileset(filepath.Join(b.dir, theme, "tileset.json"), children, b.o.HeightModel.ID(), b.copyright, theme)
}

// writeCoverTileset is writeTerrainTileset for a cover theme (which may be
// empty: a root without content or children).
func writeCoverTileset(path string, children []*tileJSON, heightModel, attribution, theme string) error {
	if len(children) > 0 {
		return writeTilesetOf(path, children, heightModel, attribution, "svc osm-cover "+theme)
	}
	doc := tilesetJSON{Asset: assetOf("1.1", "svc osm-cover "+theme, heightModel, attribution), GeometricError: 0,
		Root: &tileJSON{BoundingVolume: map[string]any{"region": []float64{0, 0, 0.0001, 0.0001, 0, 1}}, GeometricError: 0}}
	return writeJSONFile(path, doc)
}

// canopy links the BL's vegetation plantcover (the crown surface built
// from its CDSM) as the canopy theme; 0 without a vegetation pack.
func (b *coverBuild) canopy(ctx context.Context) (int64, error) {
	vm, vdir, err := newestPack(b.o.DataDir, pack.Vegetation, b.o.BL, func(m pack.Manifest) bool { return m.Vegetation != nil })
	if errors.Is(err, ErrNoSource) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var th *pack.Theme
	for i := range vm.Vegetation.Themes {
		if vm.Vegetation.Themes[i].Name == "plantcover" && vm.Vegetation.Themes[i].TileCount > 0 {
			th = &vm.Vegetation.Themes[i]
		}
	}
	if th == nil {
		return 0, nil
	}
	srcDir := filepath.Dir(filepath.Join(vdir, filepath.FromSlash(th.Path)))
	err = filepath.WalkDir(srcDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(srcDir, p)
		return pack.LinkOrCopy(p, filepath.Join(b.dir, "canopy", rel))
	})
	if err != nil {
		return 0, fmt.Errorf("tiles3d: canopy from %s: %w", vm.Key(), err)
	}
	return th.TileCount, nil
}

// sea writes the sea theme: the sea polygons (package osmdata's coastline
// rule, land on the left) flat at 0 m DHHN2016, cut into 1 km tiles.
func (b *coverBuild) sea(ctx context.Context, polys [][][][2]float64) (int64, error) {
	box := osmdata.Box{MinX: math.Inf(1), MinY: math.Inf(1), MaxX: math.Inf(-1), MaxY: math.Inf(-1)}
	for _, p := range polys {
		for _, pt := range p[0] {
			box.MinX, box.MaxX = math.Min(box.MinX, pt[0]), math.Max(box.MaxX, pt[0])
			box.MinY, box.MaxY = math.Min(box.MinY, pt[1]), math.Max(box.MaxY, pt[1])
		}
	}
	if err := os.MkdirAll(filepath.Join(b.dir, "sea", "tiles"), 0o755); err != nil {
		return 0, err
	}
	var children []*tileJSON
	flat := func(x, y float64) float64 { return 0 }
	for x0 := math.Floor(box.MinX/1000) * 1000; x0 < box.MaxX; x0 += 1000 {
		for y0 := math.Floor(box.MinY/1000) * 1000; y0 < box.MaxY; y0 += 1000 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			cell := osmdata.Box{MinX: x0, MinY: y0, MaxX: x0 + 1000, MaxY: y0 + 1000}
			m := newMeshBuf()
			fid := m.featureID(-1, &osmdata.Feature{Class: "sea"})
			for _, p := range polys {
				if r := clipRings(p, cell); r != nil {
					if err := m.addPolygon(r, flat, fid, classColors["sea"]); err != nil {
						return 0, err
					}
				}
			}
			name := "sea_" + strconv.Itoa(int(x0/1000)) + "_" + strconv.Itoa(int(y0/1000))
			tj, err := b.writeTile("sea", name, m, x0+500, y0+500)
			if err != nil {
				return 0, err
			}
			if tj != nil {
				children = append(children, tj)
			}
		}
	}
	if len(children) == 0 {
		return 0, nil
	}
	return int64(len(children)), writeCoverTileset(filepath.Join(b.dir, "sea", "tileset.json"), children, b.o.HeightModel.ID(), b.copyright, "sea")
}

// utmBox is the UTM rectangle enclosing a WGS84 box (minLon, minLat,
// maxLon, maxLat).
func utmBox(ext []float64, z geo.Zone) osmdata.Box {
	if len(ext) != 4 {
		return osmdata.Box{}
	}
	bb := geo.BBox{MinLon: ext[0], MinLat: ext[1], MaxLon: ext[2], MaxLat: ext[3]}
	out := osmdata.Box{MinX: math.Inf(1), MinY: math.Inf(1), MaxX: math.Inf(-1), MaxY: math.Inf(-1)}
	for _, p := range [][2]float64{{bb.MinLon, bb.MinLat}, {bb.MinLon, bb.MaxLat}, {bb.MaxLon, bb.MinLat}, {bb.MaxLon, bb.MaxLat},
		{(bb.MinLon + bb.MaxLon) / 2, bb.MinLat}, {(bb.MinLon + bb.MaxLon) / 2, bb.MaxLat}} {
		x, y := geo.ToUTM(z, p[0], p[1])
		out.MinX, out.MaxX = math.Min(out.MinX, x), math.Max(out.MaxX, x)
		out.MinY, out.MaxY = math.Min(out.MinY, y), math.Max(out.MaxY, y)
	}
	return out
}

// featureHash is the SHA-256 of everything of a feature the cover draws
// from: identity, class, name, geometry, width, layer, bridge and tunnel.
func featureHash(f *osmdata.Feature) [32]byte {
	ih := newInputHash(f.ID, f.Type, f.Theme, f.Class, f.Name, f.WidthM, f.Layer, f.Bridge, f.Tunnel, len(f.Polygons), len(f.Lines))
	for _, p := range f.Polygons {
		for _, r := range p {
			ih.str(strconv.Itoa(len(r)))
			for _, q := range r {
				ih.floats64(q[:])
			}
		}
		ih.str("|")
	}
	for _, l := range f.Lines {
		ih.str(strconv.Itoa(len(l)))
		for _, q := range l {
			ih.floats64(q[:])
		}
	}
	var out [32]byte
	copy(out[:], ih.h.Sum(nil))
	return out
}
