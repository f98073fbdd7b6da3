// Package maplayer is the registry of the XYZ map layers svc serves as Web
// Mercator tiles (hillshade, terrain-RGB and Terrarium PNGs, building
// vector tiles): what each is (format, tile size, zooms,
// vector layers) and how one tile is made. A layer's Tile calls the
// function its tile route calls (hillshade.Tile for the hillshade), so an
// exported tile is byte for byte what the route answers; `svc export
// pmtiles` writes layers as archives and `svc serve --pmtiles` answers the
// routes from them (Bundle).
//
// A layer registers with one call where cmd builds the registry
// (cmd/maplayers.go):
//
//	reg.Register(maplayer.Layer{Name: "terrain-rgb", Format: maplayer.PNG, ..., Tile: ...})
package maplayer

import (
	"context"
	"errors"
	"fmt"
	"github.com/svc-geodata/svc/geo"
	"slices"
	"strings"
)

// Format is the encoding of a layer's tiles.
type Format int

const (
	// PNG raster tiles.
	PNG Format = iota
	// MVT is Mapbox Vector Tile 2.1 (protobuf).
	MVT
)

// String is the TileJSON format: "pbf" or "png".
func (f Format) String() string {
	if f == MVT {
		return "pbf"
	}
	return "png"
}

// VectorLayer is one layer inside an MVT tile, as TileJSON 3.0's
// vector_layers lists it: id, description, the attribute names with their
// type ("Number", "String", "Boolean") and the zooms it is in.
type VectorLayer struct {
	ID          string            `json:"id"`
	Description string            `json:"description,omitempty"`
	Fields      map[string]string `json:"fields"`
	MinZoom     int               `json:"minzoom"`
	MaxZoom     int               `json:"maxzoom"`
}

// Coverage is where a layer has data now (WGS84 degrees, west, south,
// east, north) and the attribution its sources there require.
type Coverage struct {
	Bounds      [4]float64
	Attribution string
}

// Layer is one XYZ tile set: one tile route, one PMTiles archive.
type Layer struct {
	// Name is the layer's key (`--layers hillshade`) and its archive's
	// svc_layer; lower case, no spaces.
	Name string
	// Title and Description go to TileJSON and archive metadata.
	Title, Description string
	Format             Format
	// TileSizePx is the tile edge in pixels TileJSON's tileSize states
	// (256 for the hillshade; 0 for MVT, whose TileJSON states none).
	TileSizePx       int
	MinZoom, MaxZoom int
	// VectorLayers are the layers inside an MVT tile; naming one of them
	// (`--layers roofs`) selects this layer.
	VectorLayers []VectorLayer
	// Encoding is the elevation encoding of a raster DEM layer
	// ("terrarium" or "mapbox"), empty otherwise.
	Encoding string
	// Gzip tells that Tile returns gzip'd bytes (usual for MVT).
	Gzip bool
	// Coverage reports the data behind the layer now, of the sources
	// meeting the bbox (WGS84).
	Coverage func(within geo.BBox) Coverage
	// Tile makes tile z/x/y (y from the north) with the bytes the tile
	// route answers; an empty result is a tile without content (an MVT
	// without features), left out of archives. Errors are the sources'.
	Tile func(ctx context.Context, z, x, y int) ([]byte, error)
}

// ErrUnknown is returned for a layer name no registered layer answers to.
var ErrUnknown = errors.New("maplayer: unknown layer")

// Registry holds the layers by name. The zero value is empty and ready.
type Registry struct {
	layers []Layer
}

// Register adds l; an empty or repeated name, a layer without Tile or
// Coverage, an MVT layer without VectorLayers and zooms outside 0-30 are
// errors.
func (r *Registry) Register(l Layer) error {
	switch {
	case l.Name == "" || strings.ContainsAny(l.Name, " ,/"):
		return fmt.Errorf("maplayer: layer name %q", l.Name)
	case l.Tile == nil || l.Coverage == nil:
		return fmt.Errorf("maplayer: layer %q without Tile or Coverage", l.Name)
	case l.Format == MVT && len(l.VectorLayers) == 0:
		// PMTiles spec 5: an MVT archive's metadata must list vector_layers.
		return fmt.Errorf("maplayer: MVT layer %q without vector_layers", l.Name)
	case l.MinZoom < 0 || l.MaxZoom < l.MinZoom || l.MaxZoom > 30:
		return fmt.Errorf("maplayer: layer %q zooms %d to %d", l.Name, l.MinZoom, l.MaxZoom)
	}
	if _, ok := r.Get(l.Name); ok {
		return fmt.Errorf("maplayer: layer %q registered twice", l.Name)
	}
	r.layers = append(r.layers, l)
	return nil
}

// Get returns the layer called name.
func (r *Registry) Get(name string) (Layer, bool) {
	i := slices.IndexFunc(r.layers, func(l Layer) bool { return l.Name == name })
	if i < 0 {
		return Layer{}, false
	}
	return r.layers[i], true
}

// Names lists the names a user may give: the layers and the vector layers
// inside them, sorted.
func (r *Registry) Names() []string {
	var ns []string
	for _, l := range r.layers {
		ns = append(ns, l.Name)
		for _, v := range l.VectorLayers {
			if !slices.Contains(ns, v.ID) {
				ns = append(ns, v.ID)
			}
		}
	}
	slices.Sort(ns)
	return slices.Compact(ns)
}

// Select resolves names (layer names, or vector layer ids that select the
// layer holding them) to layers in registration order, each once. An
// unknown name is an error wrapping ErrUnknown that lists the known ones.
func (r *Registry) Select(names []string) ([]Layer, error) {
	pick := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		found := false
		for _, l := range r.layers {
			if l.Name == n || slices.ContainsFunc(l.VectorLayers, func(v VectorLayer) bool { return v.ID == n }) {
				pick[l.Name], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w %q: known layers are %s", ErrUnknown, n, strings.Join(r.Names(), ", "))
		}
	}
	var out []Layer
	for _, l := range r.layers {
		if pick[l.Name] {
			out = append(out, l)
		}
	}
	return out, nil
}
