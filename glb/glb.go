// Package glb turns LoD2 buildings into binary glTF 2.0 (GLB,
// https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html): it
// triangulates each planar surface polygon with holes in its own plane,
// winds faces outward with flat normals, places the buildings in a local
// frame (UTM East-North-Up metres or Web Mercator units around an anchor),
// and writes plain or Draco-compressed (KHR_draco_mesh_compression, Draco
// bitstream 2.2 from glb/draco) GLB, optionally with the per-building
// feature ids and metadata of 3D Tiles 1.1 (EXT_mesh_features,
// EXT_structural_metadata).
//
// Frames. All input coordinates are metres in the anchor's UTM zone (x east,
// y north, z height as the source has it, DHHN2016). The output frame has
// its origin at Options.OriginE/OriginN:
//   - FrameUTM: X = E - OriginE, Y = N - OriginN, Z = height - z base, metres.
//   - FrameMercator: Web Mercator (EPSG:3857) metres relative to the origin:
//     X = R*(lon - lon0), Y = R*(merc(lat) - merc(lat0)) with R = 6378137 m,
//     and Z = (height - z base) / cos(lat0), the Mercator scale at the
//     origin, so the model keeps its proportions. A MapLibre custom layer
//     places it with translate(MercatorCoordinate.fromLngLat(anchor)) and
//     scale(s, -s, s) with s = 1 / (2*pi*R) (MercatorCoordinate units, y
//     pointing south); three.js scenes in EPSG:3857 metres use it as is.
//
// Both frames are Z-up; glTF viewers are Y-up, which rotate_x = -90 gives.
package glb

import "errors"

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrGeometry reports unusable input geometry (non-finite coordinates,
	// malformed ring offsets).
	ErrGeometry = errors.New("glb: invalid geometry")
	// ErrOptions reports invalid Options.
	ErrOptions = errors.New("glb: invalid options")
	// ErrDraco reports that Draco compression failed; the uncompressed GLB
	// is still available.
	ErrDraco = errors.New("glb: draco compression failed")
	// ErrFeatureIDs reports more features than a Draco-compressed GLB can
	// number (65,536: its feature ids are UNSIGNED_SHORT); it comes
	// wrapped with ErrDraco.
	ErrFeatureIDs = errors.New("glb: too many features for Draco feature ids")
	// ErrTooLarge reports a mesh beyond the builder's size cap.
	ErrTooLarge = errors.New("glb: mesh too large")
)

// Surface classes (CityGML object class ids, as store uses them).
const (
	ClassWall   = 709
	ClassGround = 710
	ClassRoof   = 712
)

// Surface is one thematic surface: Flat holds x, y, z triples in the
// anchor's UTM zone (metres), Ends the ring end offsets into Flat per
// polygon (exterior ring first, then holes).
type Surface struct {
	Class int
	Flat  []float64
	Ends  [][]int
	// Solar holds, with Options.Solar, the values of the surface's
	// polygons in the order of Ends (roof facets); a nil or missing entry
	// and every surface without them are written as noData.
	Solar []*Solar
}

// Building is one building to add.
type Building struct {
	GMLID      string
	BuildingID int64
	Surfaces   []Surface
	// Attrs, when set, are written to the feature metadata (Options.Features);
	// the builder keeps the pointer: give each building its own.
	Attrs *Attrs
}

// ZBase is the height model of the output.
type ZBase uint8

// Height models (SPEC 4.4 z_base).
const (
	ZPerBuilding ZBase = iota // each building's lowest point on Z = 0
	ZBBoxMin                  // all buildings shifted by the lowest point of all
	ZAbsolute                 // heights as stored (DHHN2016, metres)
)

// Frame is the output coordinate frame; see the package comment.
type Frame uint8

// Output frames.
const (
	FrameUTM Frame = iota
	FrameMercator
)

// MaxVertices caps the vertices of one builder (about 1.5 GB of GLB),
// which bounds memory for any request.
const MaxVertices = 1 << 26

// Options configure a Builder. The zero value is per-building heights in
// the UTM frame of zone 0 at origin 0,0 without ground surfaces; callers set
// every field.
type Options struct {
	ZBase          ZBase
	Frame          Frame
	Zone           int     // UTM zone of the input (32 or 33); used by FrameMercator
	OriginE        float64 // origin easting in Zone, metres
	OriginN        float64 // origin northing in Zone, metres
	RotateXDeg     float64 // about X, applied first (intrinsic)
	RotateZDeg     float64 // about the rotated Z, applied second (intrinsic)
	IncludeGround  bool    // keep class 710 surfaces
	ColorizeRoofs  bool    // separate wall, ground and roof materials
	MergeBuildings bool    // one mesh; else one mesh and node per building
	WeldToleranceM float64 // merge vertices closer than this (same normal); 0 off
	// Features adds _FEATURE_ID_0 per vertex (the building's index in Add
	// order), EXT_mesh_features and an EXT_structural_metadata property
	// table with gmlid, building_id and the Building's Attrs (3D Tiles 1.1).
	// DracoGLB codes the ids losslessly as UNSIGNED_SHORT (at most 65,536
	// buildings, else ErrFeatureIDs); GLB as FLOAT.
	Features bool
	// YUp writes (X, Z, -Y) after the rotation: the glTF convention 3D
	// Tiles content expects.
	YUp bool
	// Solar writes the Surface.Solar values per vertex as the property
	// attributes of class roof_solar (SolarSchema); it needs Features, and
	// is written by GLB only (DracoGLB errors wrap ErrOptions).
	Solar bool
	// Copyright is written as asset.copyright: the attribution the data's
	// licence requires wherever it is shown (CesiumJS shows it as a credit).
	Copyright string
}
