// Package export builds downloadable artefacts from the published packs:
// the GLB of the buildings of a bbox, for the HTTP route
// /v1/buildings/3d.glb and the command svc export glb alike.
package export

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/lod2store"
)

// GLBRequest says which buildings go into the GLB and how it is framed.
type GLBRequest struct {
	BBox                    geo.BBox
	ZBase                   string // per_building (default), bbox_min or absolute
	Frame                   string // utm (default) or mercator
	Origin                  string // center (default) or corner
	Colorize, Merge, Ground bool
	RotateX, RotateZ        float64 // degrees
	WeldM                   float64 // weld tolerance, metres
	// Features writes each building as a feature: per-vertex ids
	// (EXT_mesh_features) and its attributes in an EXT_structural_metadata
	// property table, the schema of the 3D Tiles (glb.BuildingClass).
	Features bool
	// Limits: a request beyond them fails with a *TooLargeError.
	MaxAreaKM2   float64
	MaxBuildings int
}

// Anchor is where the GLB's origin lies: the UTM zone of the bbox centre,
// the anchor point (centre, or the south-west corner) and its E, N.
type Anchor struct {
	Zone   geo.Zone
	LonLat geo.LonLat
	E, N   float64
}

// Anchor returns the anchor of the request.
func (r GLBRequest) Anchor() Anchor {
	c := r.BBox.Center()
	a := Anchor{Zone: geo.ZoneForLon(c.Lon), LonLat: c}
	if r.Origin == "corner" {
		a.LonLat = geo.LonLat{Lon: r.BBox.MinLon, Lat: r.BBox.MinLat}
	}
	a.E, a.N = geo.ToUTM(a.Zone, a.LonLat.Lon, a.LonLat.Lat)
	return a
}

// Source is a published LoD2 pack meeting the bbox.
type Source struct {
	BL, Snapshot string
	Attribution  string // the BL's licence attribution, written into the GLB
	Store        *lod2store.LoD2
	ids          []int64
}

// SourcesIn returns the published LoD2 packs of v whose extent meets
// bbox, by BL code.
func SourcesIn(v *catalog.View, bbox geo.BBox) []Source {
	var out []Source
	for _, p := range v.LoD2() {
		if bbox.Intersects(p.LoD2.BBox()) {
			out = append(out, Source{BL: p.Manifest.BL, Snapshot: p.Manifest.Snapshot, Attribution: p.Manifest.AttributionText(), Store: p.LoD2})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].BL < out[j].BL })
	return out
}

// TooLargeError reports a request beyond the limits: the bbox area, the
// number of buildings, or the mesh size.
type TooLargeError struct{ Detail string }

func (e *TooLargeError) Error() string { return "export: " + e.Detail }

// ErrOptions reports framing options the GLB builder refuses.
var ErrOptions = errors.New("export: invalid options")

// Result is a built GLB and what it holds.
type Result struct {
	Builder *glb.Builder
	Anchor  Anchor
	// BL lists the states whose buildings are in the GLB.
	BL []string
}

// GLB collects the buildings of the bbox from srcs (within the limits)
// and streams them into one builder; only the building being converted is
// held besides the growing mesh. The mesh is deterministic for a request
// and the packs' snapshots.
func GLB(ctx context.Context, srcs []Source, r GLBRequest) (Result, error) {
	if a := r.BBox.AreaKM2(); r.MaxAreaKM2 > 0 && a > r.MaxAreaKM2 {
		return Result{}, &TooLargeError{fmt.Sprintf("The bbox covers %.3f km2; at most %g km2 are allowed.", a, r.MaxAreaKM2)}
	}
	srcs = slices.Clone(srcs)
	total := 0
	for i := range srcs {
		limit := -1 // unlimited
		if r.MaxBuildings > 0 {
			limit = r.MaxBuildings - total
		}
		ids, err := srcs[i].Store.BuildingIDsIn(ctx, r.BBox, limit)
		if errors.Is(err, lod2store.ErrTooMany) {
			return Result{}, &TooLargeError{fmt.Sprintf("More than %d buildings meet the bbox; at most %d are allowed.", r.MaxBuildings, r.MaxBuildings)}
		}
		if err != nil {
			return Result{}, err
		}
		srcs[i].ids, total = ids, total+len(ids)
	}
	an := r.Anchor()
	o := glb.Options{Zone: int(an.Zone), OriginE: an.E, OriginN: an.N, RotateXDeg: r.RotateX, RotateZDeg: r.RotateZ,
		IncludeGround: r.Ground, ColorizeRoofs: r.Colorize, MergeBuildings: r.Merge, WeldToleranceM: r.WeldM, Features: r.Features}
	switch r.ZBase {
	case "bbox_min":
		o.ZBase = glb.ZBBoxMin
	case "absolute":
		o.ZBase = glb.ZAbsolute
	}
	if r.Frame == "mercator" {
		o.Frame = glb.FrameMercator
	}
	res := Result{Anchor: an}
	var parts []string
	for _, s := range srcs {
		if len(s.ids) > 0 {
			res.BL = append(res.BL, s.BL)
			if s.Attribution != "" && !slices.Contains(parts, s.Attribution) {
				parts = append(parts, s.Attribution)
			}
		}
	}
	o.Copyright = strings.Join(parts, "; ")
	b, err := glb.NewBuilder(o)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	var gb glb.Building
	for _, src := range srcs {
		if len(src.ids) == 0 {
			continue
		}
		zone := src.Store.Zone()
		attrs, err := glbAttrsOf(ctx, src, r.Features)
		if err != nil {
			return Result{}, err
		}
		err = src.Store.BuildingGeometry(ctx, src.ids, func(bd *lod2store.Building3D) error {
			gb.GMLID, gb.BuildingID, gb.Surfaces, gb.Attrs = bd.GMLID, bd.BuildingID, gb.Surfaces[:0], attrs[bd.BuildingID]
			for _, sf := range bd.Surfaces {
				if zone != an.Zone {
					reproject(sf.Flat, zone, an.Zone)
				}
				gb.Surfaces = append(gb.Surfaces, glb.Surface{Class: sf.Class, Flat: sf.Flat, Ends: sf.Ends})
			}
			_, err := b.Add(&gb)
			return err
		})
		if errors.Is(err, glb.ErrTooLarge) {
			return Result{}, &TooLargeError{fmt.Sprintf("The buildings of the bbox exceed the mesh size limit (%d vertices).", glb.MaxVertices)}
		}
		if err != nil {
			return Result{}, err
		}
	}
	res.Builder = b
	return res, nil
}

// reproject moves x, y of flat (x, y, z triples) from one UTM zone into
// another, in place.
func reproject(flat []float64, from, to geo.Zone) {
	for i := 0; i+2 < len(flat); i += 3 {
		lon, lat := geo.FromUTM(from, flat[i], flat[i+1])
		flat[i], flat[i+1] = geo.ToUTM(to, lon, lat)
	}
}

// glbAttrsOf reads the feature metadata of src's buildings by id (none
// without features).
func glbAttrsOf(ctx context.Context, src Source, features bool) (map[int64]*glb.Attrs, error) {
	attrs := map[int64]*glb.Attrs{}
	if !features {
		return attrs, nil
	}
	err := src.Store.BuildingAttributes(ctx, src.ids, func(a *lod2store.Attributes) error {
		attrs[a.BuildingID] = lod2store.GLBAttrs(a)
		return nil
	})
	return attrs, err
}
