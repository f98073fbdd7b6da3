package buildings

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/svc-geodata/svc/adv"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/solarstore"
)

// The building vector tiles (docs/vector-tiles.md).
const (
	// TileMinZoom and TileMaxZoom bound the tiles cut: at z18 one tile
	// unit is about 2.3 cm at 52° N, the centimetre precision of the
	// data, so map clients overzoom z18 above it.
	TileMinZoom = 12
	TileMaxZoom = 18
	// RoofMinZoom is the first zoom with the roofs layer.
	RoofMinZoom = 16
	// TileBuffer is the clip buffer in tile units (of mvt.Extent) around
	// a tile: MapLibre draws no walls along edges outside the tile.
	TileBuffer = 64
	// maxTileSurfaces bounds the surfaces one tile reads (ErrTileTooLarge
	// beyond): a z12 tile over the densest German city holds some 10^5.
	maxTileSurfaces = 1_000_000
	tilePage        = 10_000
)

// Layer names.
const (
	LayerBuildings = "buildings"
	LayerRoofs     = "roofs"
)

// ErrTileTooLarge is returned for a tile holding more surfaces than one
// tile may read.
var ErrTileTooLarge = errors.New("buildings: tile too large")

// Tiler cuts building vector tiles from LoD2 sources. It is safe for
// concurrent use.
type Tiler struct {
	srcs  []lod2store.Source
	solar map[string]*solarstore.Store // by BL; see WithSolar
}

// cutters recycles what a cut reuses (layers with their key and value
// maps, scratch slices) across tilers too (the route makes one per
// request): a cold tile allocated about 100 KB without.
var cutters = sync.Pool{New: func() any {
	return &tileCutter{clip: mvt.NewClipper(mvt.Extent, TileBuffer),
		blds: mvt.NewLayer(LayerBuildings, mvt.Extent), roofs: mvt.NewLayer(LayerRoofs, mvt.Extent)}
}}

// NewTiler returns a tiler over srcs (see Sources), every published BL in
// both UTM zones.
func NewTiler(srcs []lod2store.Source) *Tiler {
	return &Tiler{srcs: slices.SortedFunc(slices.Values(srcs), func(a, b lod2store.Source) int {
		return cmpStr(a.BL, b.BL)
	})}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TileResult is a tile with what was counted while cutting it.
type TileResult struct {
	Data      []byte // the vector tile, not compressed; empty when no building meets the tile
	Buildings int    // features of the buildings layer
	Roofs     int    // features of the roofs layer
	BL        string // the first BL with a building in the tile ("" none)
}

// Tile returns the Mapbox Vector Tile 2.1 of Web Mercator tile z/x/y
// (uncompressed; zero bytes when no building meets it): layer buildings,
// one polygon per building whose footprint meets the tile, and from
// RoofMinZoom layer roofs, one polygon per roof facet. Errors wrap
// ErrTileTooLarge, lod2store.ErrInput for a tile outside TileMinZoom to
// TileMaxZoom or off the grid, or are a *lod2store.DamagedError naming a
// damaged pack the tile needed.
func (t *Tiler) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	r, err := t.TileResult(ctx, z, x, y)
	return r.Data, err
}

// TileResult is Tile with its counts.
func (t *Tiler) TileResult(ctx context.Context, z, x, y int) (TileResult, error) {
	id := mvt.TileID{Z: z, X: x, Y: y}
	if !id.Valid() || z < TileMinZoom || z > TileMaxZoom {
		return TileResult{}, fmt.Errorf("buildings: tile %d/%d/%d: %w", z, x, y, lod2store.ErrInput)
	}
	w, s, e, n := id.BufferedWGS84(mvt.Extent, TileBuffer)
	bbox := geo.BBox{MinLon: w, MinLat: s, MaxLon: e, MaxLat: n}
	c := cutters.Get().(*tileCutter)
	defer cutters.Put(c)
	c.tile, c.proj = id, mvt.NewProjector(id, mvt.Extent)
	c.blds.Reset()
	c.roofs.Reset()
	var res TileResult
	for _, src := range t.srcs {
		if !bbox.Intersects(src.LoD2.BBox()) {
			continue
		}
		before := c.blds.Len()
		if err := c.source(ctx, src, t.solar[src.BL], bbox, z >= RoofMinZoom); err != nil {
			return TileResult{}, Damaged(src, err)
		}
		if res.BL == "" && c.blds.Len() > before {
			res.BL = src.BL
		}
	}
	res.Buildings, res.Roofs = c.blds.Len(), c.roofs.Len()
	res.Data = mvt.AppendTile(nil, c.blds, c.roofs)
	return res, nil
}

// tileCutter holds what one tile's cut reuses.
type tileCutter struct {
	tile        mvt.TileID
	proj        mvt.Projector
	clip        *mvt.Clipper
	blds, roofs *mvt.Layer
	rings       mvt.Rings
	xy          []float64
	ends        []int
	hits        []lod2store.FedHit
	props       []mvt.Prop
	sun         map[facetKey]solarstore.Facet // the solar values of the roofs of one source
}

// source adds the buildings (and roofs, with the solar values of sun when
// not nil) of one BL: from its tile file where the pack has one, else from
// the search and the attribute rows.
func (c *tileCutter) source(ctx context.Context, src lod2store.Source, sun *solarstore.Store, bbox geo.BBox, roofs bool) error {
	if !src.LoD2.HasTileFile() {
		return c.searchSource(ctx, src, sun, bbox, roofs)
	}
	blIndex := blNumber(src.BL)
	err := src.LoD2.TileBuildings(ctx, lod2store.TileQuery{Tile: c.tile, Extent: mvt.Extent, Buffer: TileBuffer, MaxSurfaces: maxTileSurfaces},
		func(b *lod2store.TileBuilding) error {
			c.rings.Reset()
			for xy, ends := range b.Polygons() {
				c.clip.AppendRoundedPolygon(&c.rings, xy, ends)
			}
			c.addBuilding(blIndex, src.BL, &b.Attrs)
			return nil
		})
	if errors.Is(err, lod2store.ErrTooLarge) {
		return fmt.Errorf("%w: %w", ErrTileTooLarge, err)
	}
	if err != nil || !roofs {
		return err
	}
	if err := c.search(ctx, src, bbox, []int{lod2store.ClassRoof}); err != nil {
		return err
	}
	return c.addRoofs(ctx, src, sun)
}

// search collects the surfaces of the classes meeting bbox in c.hits.
func (c *tileCutter) search(ctx context.Context, src lod2store.Source, bbox geo.BBox, classes []int) error {
	one := []lod2store.Source{src}
	c.hits = c.hits[:0]
	for _, class := range classes {
		var after lod2store.Position
		for {
			var next *lod2store.Position
			var damaged []*lod2store.DamagedError
			var err error
			c.hits, next, damaged, err = lod2store.AppendSearch(ctx, c.hits, one, bbox, after, tilePage, lod2store.Filter{Class: class})
			if err != nil {
				return err
			}
			if len(damaged) > 0 {
				return damaged[0]
			}
			if len(c.hits) > maxTileSurfaces {
				return fmt.Errorf("%w: more than %d surfaces", ErrTileTooLarge, maxTileSurfaces)
			}
			if next == nil {
				break
			}
			after = *next
		}
	}
	return nil
}

// searchSource is source for a pack without a tile file.
func (c *tileCutter) searchSource(ctx context.Context, src lod2store.Source, sun *solarstore.Store, bbox geo.BBox, roofs bool) error {
	if err := c.search(ctx, src, bbox, []int{lod2store.ClassGround, lod2store.ClassRoof}); err != nil {
		return err
	}
	if len(c.hits) == 0 {
		return nil
	}
	// By building, ground surfaces before roofs, each by surface id.
	slices.SortFunc(c.hits, func(a, b lod2store.FedHit) int {
		if a.BuildingID != b.BuildingID {
			return cmpInt(a.BuildingID, b.BuildingID)
		}
		if a.Class != b.Class {
			return cmpInt(int64(a.Class), int64(b.Class))
		}
		return cmpInt(a.SurfaceID, b.SurfaceID)
	})
	ids := make([]int64, 0, len(c.hits)/2)
	for _, h := range c.hits {
		if len(ids) == 0 || ids[len(ids)-1] != h.BuildingID {
			ids = append(ids, h.BuildingID)
		}
	}
	blIndex := blNumber(src.BL)
	i := 0
	err := src.LoD2.TileAttributes(ctx, ids, func(a *lod2store.TileAttrs) error {
		for i < len(c.hits) && c.hits[i].BuildingID < a.BuildingID {
			i++
		}
		want := lod2store.ClassGround
		switch a.FootprintSource {
		case "roof":
			want = lod2store.ClassRoof
		case "ground":
		default:
			return nil
		}
		c.rings.Reset()
		for ; i < len(c.hits) && c.hits[i].BuildingID == a.BuildingID; i++ {
			if h := &c.hits[i]; h.Class == want {
				if err := c.addCoords(h.Coords, 4); err != nil {
					return fmt.Errorf("surface %d: %w", h.SurfaceID, err)
				}
			}
		}
		c.addBuilding(blIndex, src.BL, a)
		return nil
	})
	if err != nil || !roofs {
		return err
	}
	return c.addRoofs(ctx, src, sun)
}

// addBuilding adds the feature of building a with the rings in c.rings.
func (c *tileCutter) addBuilding(blIndex uint64, bl string, a *lod2store.TileAttrs) {
	c.props = append(c.props[:0], mvt.Prop{Key: "building_id", Value: mvt.Int(a.BuildingID)},
		mvt.Prop{Key: "gmlid", Value: mvt.String(a.GMLID)}, mvt.Prop{Key: "bl", Value: mvt.String(bl)})
	for _, p := range []struct {
		k  string
		v  float64
		ok bool
	}{{"height_m", a.HeightM.Float64, a.HeightM.Valid}, {"ground_m", a.GroundZ.Float64, a.GroundZ.Valid},
		{"roof_max_m", a.RidgeZ.Float64, a.RidgeZ.Valid}} {
		if p.ok && !math.IsNaN(p.v) && !math.IsInf(p.v, 0) {
			c.props = append(c.props, mvt.Prop{Key: p.k, Value: mvt.Double(p.v)})
		}
	}
	// Function and roof type as the 3D Tiles metadata carry them
	// (issue 25 point 4): the code and its German AdV label, so a
	// style can match codes and a popup show words.
	if a.Function != "" {
		c.props = append(c.props, mvt.Prop{Key: "function", Value: mvt.String(a.Function)})
		if e, ok := adv.BuildingFunction(a.Function); ok {
			c.props = append(c.props, mvt.Prop{Key: "function_label", Value: mvt.String(e.De)})
		}
	}
	if a.RoofType != "" {
		c.props = append(c.props, mvt.Prop{Key: "roof_type", Value: mvt.String(a.RoofType)})
		if e, ok := adv.RoofType(a.RoofType); ok {
			c.props = append(c.props, mvt.Prop{Key: "roof_type_label", Value: mvt.String(e.De)})
		}
	}
	if a.Storeys > 0 {
		c.props = append(c.props, mvt.Prop{Key: "storeys", Value: mvt.Int(a.Storeys)})
	}
	c.blds.AddPolygon(blIndex<<32|uint64(a.BuildingID), c.rings, c.props)
}

// addRoofs adds the roof facets of the roof surfaces in c.hits, with the
// solar values of sun when not nil.
func (c *tileCutter) addRoofs(ctx context.Context, src lod2store.Source, sun *solarstore.Store) error {
	var sids []int64
	for _, h := range c.hits {
		if h.Class == lod2store.ClassRoof {
			sids = append(sids, h.SurfaceID)
		}
	}
	slices.Sort(sids)
	if err := c.solarOf(ctx, sun, sids); err != nil {
		return err
	}
	return src.LoD2.RoofFacets(ctx, sids, func(sid, bid int64, facets []lod2store.Facet) error {
		for part, f := range facets {
			c.rings.Reset()
			if err := c.addCoords(f.Coords, 3); err != nil {
				return fmt.Errorf("roof surface %d: %w", sid, err)
			}
			c.props = append(c.props[:0], mvt.Prop{Key: "building_id", Value: mvt.Int(bid)},
				mvt.Prop{Key: "surface_id", Value: mvt.Int(sid)}, mvt.Prop{Key: "bl", Value: mvt.String(src.BL)},
				mvt.Prop{Key: "tilt_deg", Value: mvt.Double(f.TiltDeg)}, mvt.Prop{Key: "area_m2", Value: mvt.Double(f.AreaM2)})
			if f.AzimuthDeg != nil {
				c.props = append(c.props, mvt.Prop{Key: "azimuth_deg", Value: mvt.Double(*f.AzimuthDeg)})
			}
			c.appendSolar(sun, sid, part)
			c.roofs.AddPolygon(0, c.rings, c.props)
		}
		return nil
	})
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// blNumber is the BL's position (1 to 16) in bl.All(): the high half of a
// building feature's id.
func blNumber(code string) uint64 {
	for i, s := range bl.All() {
		if s.Code == code {
			return uint64(i + 1)
		}
	}
	return 0
}

// addCoords projects the polygons of GeoJSON coordinates (WGS84, with or
// without z) into the tile and appends them, rounded and clipped, to
// c.rings. pointDepth is the bracket depth of a position: 4 in a
// MultiPolygon, 3 in a Polygon.
func (c *tileCutter) addCoords(coords []byte, pointDepth int) error {
	c.xy, c.ends = c.xy[:0], c.ends[:0]
	depth, axis := 0, 0
	var lon float64
	for i := 0; i < len(coords); i++ {
		switch b := coords[i]; b {
		case '[':
			depth++
			axis = 0
		case ']':
			depth--
			switch depth {
			case pointDepth - 2: // a ring ends
				c.ends = append(c.ends, len(c.xy))
			case pointDepth - 3: // a polygon ends
				if len(c.ends) > 0 {
					c.clip.AppendPolygon(&c.rings, c.xy, c.ends)
				}
				c.xy, c.ends = c.xy[:0], c.ends[:0]
			}
		case ',', ' ':
		default:
			if depth != pointDepth {
				return fmt.Errorf("%w: coordinates at depth %d", lod2store.ErrCorrupt, depth)
			}
			j := i
			for j < len(coords) && coords[j] != ',' && coords[j] != ']' {
				j++
			}
			v, err := strconv.ParseFloat(string(coords[i:j]), 64)
			if err != nil {
				return fmt.Errorf("%w: coordinate %q", lod2store.ErrCorrupt, coords[i:j])
			}
			switch axis {
			case 0:
				lon = v
			case 1:
				x, y := c.proj.Project(lon, v)
				c.xy = append(c.xy, x, y)
			}
			axis++
			i = j - 1
		}
	}
	if depth != 0 {
		return fmt.Errorf("%w: unbalanced coordinates", lod2store.ErrCorrupt)
	}
	return nil
}
