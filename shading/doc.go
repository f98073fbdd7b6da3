// Package shading computes what stands between a roof facet and the sun and
// sky: the terrain horizon from the DGM (several km, with the earth's
// curvature), the LoD2 buildings nearby (rays against their triangles,
// filed per sample point by azimuth sector and elevation bound; a uniform
// grid for the sky-view horizon) and the trees of the CDSM (rays through
// the crowns, attenuated by a seasonal extinction). For one facet it returns the beam
// visibility of every daylight step of a solar.Sky and the sky-view factor,
// and evaluates the facet's irradiation with the loss split into terrain,
// buildings and trees (docs/solar.md, sections 6-9).
//
// Coordinates are metres in one UTM CRS (EPSG:25832 or 25833) with heights
// in DHHN2016; azimuths are degrees from true north, eastward, as in package
// solar. The package reads its inputs through terrain and lod2store
// (source.go) and is otherwise pure computation: no HTTP, no logging.
package shading

import "errors"

// ErrInvalid marks an argument outside its domain (a facet without area, a
// non-finite coordinate, an option out of range).
var ErrInvalid = errors.New("shading: invalid argument")

// earthRadiusM is the mean earth radius GRASS r.horizon uses for the drop of
// distant terrain below the tangent plane (no atmospheric refraction).
const earthRadiusM = 6371000.0
