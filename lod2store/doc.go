// Package lod2store reads and writes the LoD2 packs of the federal states: one
// SpatiaLite file per BL and snapshot holding every building surface with
// its geometry in the source CRS, an R*Tree for GIS tools, and the derived
// data that make the API fast (WGS84 GeoJSON coordinates of each surface and
// a packed Hilbert R-tree whose leaf order is the search order). Searches
// over several BL are federated here too.
package lod2store

import "errors"

// Sentinel errors. Callers test them with errors.Is.
var (
	ErrNotFound = errors.New("store: not found")
	ErrCursor   = errors.New("store: invalid cursor")
	ErrCorrupt  = errors.New("store: corrupt LoD2 file")
	ErrInput    = errors.New("store: invalid input")
)

// Surface classes (CityGML object class ids, SPEC 2.3).
const (
	ClassWall   = 709
	ClassGround = 710
	ClassRoof   = 712
)
