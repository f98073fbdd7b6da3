// Package spatialite reads and writes SpatiaLite databases in pure Go, without
// loading mod_spatialite: the BLOB-Geometry encoding of geometries, the
// SpatiaLite v4 metadata tables (spatial_ref_sys, geometry_columns and their
// companions) and the idx_<table>_<column> R*Tree spatial index.
//
// Files written with this package open in GDAL's SQLite driver as SpatiaLite
// databases and in the spatialite CLI (CheckSpatialMetaData() = 3). The
// format is described in "The SpatiaLite BLOB-Geometry format"
// (https://www.gaia-gis.it/gaia-sins/BLOB-Geometry.html).
//
// Geometries are github.com/twpayne/go-geom values in the layouts XY, XYZ,
// XYM and XYZM. Coordinates are stored as they are, in the CRS named by the
// SRID; this package never transforms them.
package spatialite

import (
	"errors"
	"fmt"

	"github.com/twpayne/go-geom"
)

// Sentinel errors. Errors returned by this package wrap one of these.
var (
	// ErrInvalid reports a malformed geometry BLOB or a geometry that cannot
	// be encoded (non-finite coordinate, mixed layouts, SRID out of range).
	ErrInvalid = errors.New("spatialite: invalid geometry")
	// ErrEmpty reports an empty geometry or an empty part of one; SpatiaLite
	// has no encoding for them (its own GeomFromText returns NULL).
	ErrEmpty = errors.New("spatialite: empty geometry")
	// ErrUnsupported reports a geometry type or layout SpatiaLite cannot hold.
	ErrUnsupported = errors.New("spatialite: unsupported geometry")
)

// BLOB-Geometry framing bytes and offsets.
const (
	blobStart    = 0x00
	bigEndian    = 0x00
	littleEndian = 0x01
	mbrEnd       = 0x7C
	entityMark   = 0x69
	blobEnd      = 0xFE

	offSRID   = 2
	offMBR    = 6
	offMBREnd = 38
	offClass  = 39
	headerLen = 43            // start, endian, SRID, MBR, 0x7C, class
	minBlob   = headerLen + 1 // plus the 0xFE end marker
)

// Geometry class codes (the "class type" field): the OGC type number plus
// 1000 for Z, 2000 for M, 3000 for ZM, plus 1000000 for compressed
// linestrings and polygons.
const (
	kindPoint              = 1
	kindLineString         = 2
	kindPolygon            = 3
	kindMultiPoint         = 4
	kindMultiLineString    = 5
	kindMultiPolygon       = 6
	kindGeometryCollection = 7

	compressedOffset = 1000000
)

// Rect is a 2D bounding rectangle in the units of the geometry's CRS (metres
// for EPSG 25832/25833, degrees for EPSG 4326/4258).
type Rect struct {
	MinX, MinY, MaxX, MaxY float64
}

// Intersects reports whether r and o share at least one point; touching
// edges count, as in SpatiaLite's MbrIntersects and the R*Tree query.
func (r Rect) Intersects(o Rect) bool {
	return r.MinX <= o.MaxX && o.MinX <= r.MaxX && r.MinY <= o.MaxY && o.MinY <= r.MaxY
}

// dimOffset returns the class-code offset of a layout.
func dimOffset(l geom.Layout) (uint32, error) {
	switch l {
	case geom.XY:
		return 0, nil
	case geom.XYZ:
		return 1000, nil
	case geom.XYM:
		return 2000, nil
	case geom.XYZM:
		return 3000, nil
	}
	return 0, fmt.Errorf("spatialite: layout %v: %w", l, ErrUnsupported)
}

// layoutOf maps the class-code offset (0..3) back to a layout.
func layoutOf(dim uint32) geom.Layout {
	return [...]geom.Layout{geom.XY, geom.XYZ, geom.XYM, geom.XYZM}[dim]
}

// classCode returns the class code for kind in layout l.
func classCode(kind uint32, l geom.Layout) (uint32, error) {
	off, err := dimOffset(l)
	return kind + off, err
}

// kindOf returns the OGC type number of g.
func kindOf(g geom.T) (uint32, error) {
	switch g.(type) {
	case *geom.Point:
		return kindPoint, nil
	case *geom.LineString:
		return kindLineString, nil
	case *geom.Polygon:
		return kindPolygon, nil
	case *geom.MultiPoint:
		return kindMultiPoint, nil
	case *geom.MultiLineString:
		return kindMultiLineString, nil
	case *geom.MultiPolygon:
		return kindMultiPolygon, nil
	case *geom.GeometryCollection:
		return kindGeometryCollection, nil
	}
	return 0, fmt.Errorf("spatialite: geometry type %T: %w", g, ErrUnsupported)
}
