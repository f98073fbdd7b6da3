package citygml

// Point is one position as written in the file: x = easting (m), y = northing
// (m), z = height (m) in the building's CRS (see Building.EPSG). Positions read
// from a 2D posList (srsDimension="2") have z = 0.
type Point [3]float64

// Ring is a closed sequence of points as written in the file; a well-formed
// ring repeats its first point at the end. The reader never closes, dedups or
// reorders rings, apart from reversing those under gml:OrientableSurface with
// orientation="-".
type Ring []Point

// Polygon is one planar facet: an exterior ring and zero or more holes.
// Exterior is empty when the file gave no exterior ring (Validate flags it).
type Polygon struct {
	Exterior  Ring
	Interiors []Ring
}

// Class is the CityGML boundary surface class of a Surface.
type Class uint8

// The surface classes. Unclassified is geometry that comes only from
// bldg:lod2Solid or bldg:lod2MultiSurface of a Building or BuildingPart that
// has no thematic boundary surfaces.
const (
	Unclassified Class = iota
	Wall
	Roof
	Ground
	Closure
	OuterCeiling
	OuterFloor
)

// Code returns the CityGML object class id used by the API (SPEC 2.3
// surface_class): 709 wall, 710 ground, 712 roof, 0 for every other class.
func (c Class) Code() int {
	switch c {
	case Wall:
		return 709
	case Ground:
		return 710
	case Roof:
		return 712
	}
	return 0
}

// String returns the CityGML element name of the class (for example
// "RoofSurface"), or "Unclassified".
func (c Class) String() string {
	switch c {
	case Wall:
		return "WallSurface"
	case Roof:
		return "RoofSurface"
	case Ground:
		return "GroundSurface"
	case Closure:
		return "ClosureSurface"
	case OuterCeiling:
		return "OuterCeilingSurface"
	case OuterFloor:
		return "OuterFloorSurface"
	}
	return "Unclassified"
}

// classOf maps the local name of a bldg boundary surface element to its Class.
// ok is false for the interior (LoD4) surfaces InteriorWallSurface,
// CeilingSurface and FloorSurface, which the reader skips, and for anything
// that is not a boundary surface.
func classOf(local []byte) (Class, bool) {
	switch string(local) {
	case "WallSurface":
		return Wall, true
	case "RoofSurface":
		return Roof, true
	case "GroundSurface":
		return Ground, true
	case "ClosureSurface":
		return Closure, true
	case "OuterCeilingSurface":
		return OuterCeiling, true
	case "OuterFloorSurface":
		return OuterFloor, true
	}
	return 0, false
}

// Surface is one thematic boundary surface (bldg:WallSurface, ...) with its
// LoD2 polygons, or, for Class Unclassified, one polygon of a lod2Solid or
// lod2MultiSurface.
type Surface struct {
	// ID is the gml:id of the thematic surface; when that has none, the gml:id
	// of its first polygon. For Unclassified surfaces it is the polygon's
	// gml:id. It may be empty.
	ID string
	// OwnerID is the gml:id of the Building or BuildingPart the surface bounds.
	OwnerID string
	// Class is the thematic class.
	Class Class
	// Polygons holds at least one polygon.
	Polygons []Polygon
}

// Building is one bldg:Building with the LoD2 surfaces of the building and of
// all its (nested) bldg:BuildingParts.
type Building struct {
	// ID is the gml:id of the bldg:Building (for example "DENW49AL0000LI95",
	// "DEBY_LOD2_4906972" or a UUID form); it may be empty.
	ID string
	// EPSG is the horizontal CRS of the coordinates (25832 or 25833), taken
	// from an srsName inside the building or else from the file's last
	// srsName before it.
	EPSG int
	// Line is the line number of the bldg:Building start tag.
	Line int
	// Parts lists the gml:ids of the building's BuildingParts in file order.
	Parts []string
	// Attributes are the building's own attributes (not its parts').
	Attributes
	// BuildingParts lists the building's BuildingParts, nested ones
	// included, in file order (the order of Parts), each with its parent
	// and its own attributes; nil when there is none.
	BuildingParts []BuildingPart
	// Surfaces lists the surfaces in file order; thematic surfaces first as
	// they appear, unclassified polygons after them.
	Surfaces []Surface
	// Unresolved counts xlink:href references that named no geometry inside
	// the building (references to other files or other buildings); their
	// geometry is missing from Surfaces.
	Unresolved int

	// fnBuf and addrBuf back Function and Addresses in the common case of
	// one value, saving two allocations per building.
	fnBuf   [1]Code
	addrBuf [1]Address
}
