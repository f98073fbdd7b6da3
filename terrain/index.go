package terrain

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

// IndexName is the file name of a raster pack's tile index.
const IndexName = "index.json"

// IndexFormat identifies the index format this build reads and writes.
const IndexFormat = "svc-raster-index/1"

// Layer names used in the index: the terrain pack has LayerDGM, the
// vegetation pack LayerCDSM and optionally LayerTDSM.
const (
	LayerDGM  = "dgm"
	LayerCDSM = "cdsm"
	LayerTDSM = "tdsm"
)

// Limits on an index, so a hostile pack cannot make the server allocate
// without bound.
const (
	maxIndexBytes = 64 << 20
	maxTiles      = 1 << 20
	cellM         = 1000.0 // edge of a routing cell, metres
	maxCellsTile  = 4096   // routing cells one tile may span (64 km x 64 km)
)

// Tile is one raster file of a layer.
type Tile struct {
	// Name is the tile's name, unique in its layer (the source file stem).
	Name string `json:"name"`
	// Path is the COG file relative to the pack directory; URL the remote
	// COG of a pass-through pack. Exactly one is set.
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// BBox is minX, minY, maxX, maxY of the tile in the index CRS (metres).
	BBox [4]float64 `json:"bbox"`
	// PixelM is the pixel edge in metres (informational).
	PixelM float64 `json:"pixel_m,omitempty"`
}

// Index lists the tiles of a raster pack, per layer, in one CRS.
type Index struct {
	Format string            `json:"format"`
	EPSG   int               `json:"epsg"`
	Layers map[string][]Tile `json:"layers"`
}

// WriteIndex writes ix to path as JSON, tiles sorted by name.
func WriteIndex(path string, ix Index) error {
	ix.Format = IndexFormat
	for _, ts := range ix.Layers {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	}
	b, err := json.MarshalIndent(ix, "", " ")
	if err != nil {
		return fmt.Errorf("terrain: index: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("terrain: index: %w", err)
	}
	return nil
}

// ReadIndex reads and checks an index file. Errors wrap ErrIndex.
func ReadIndex(path string) (Index, error) {
	var ix Index
	f, err := os.Open(path)
	if err != nil {
		return ix, fmt.Errorf("%w: %v", ErrIndex, err)
	}
	defer f.Close()
	if err := json.NewDecoder(io.LimitReader(f, maxIndexBytes)).Decode(&ix); err != nil {
		return ix, fmt.Errorf("%w: %v", ErrIndex, err)
	}
	return ix, ix.check()
}

func (ix Index) check() error {
	if ix.Format != IndexFormat {
		return fmt.Errorf("%w: format %q, want %q", ErrIndex, ix.Format, IndexFormat)
	}
	if ix.EPSG != 25832 && ix.EPSG != 25833 {
		return fmt.Errorf("%w: EPSG:%d is not UTM32N or UTM33N", ErrIndex, ix.EPSG)
	}
	for name, ts := range ix.Layers {
		if len(ts) > maxTiles {
			return fmt.Errorf("%w: layer %s has %d tiles, at most %d", ErrIndex, name, len(ts), maxTiles)
		}
		seen := make(map[string]bool, len(ts))
		for _, t := range ts {
			if err := t.check(); err != nil {
				return fmt.Errorf("%w: layer %s: %v", ErrIndex, name, err)
			}
			if seen[t.Name] {
				return fmt.Errorf("%w: layer %s: duplicate tile %q", ErrIndex, name, t.Name)
			}
			seen[t.Name] = true
		}
	}
	return nil
}

func (t Tile) check() error {
	if t.Name == "" || strings.ContainsAny(t.Name, "/\\") {
		return fmt.Errorf("tile name %q", t.Name)
	}
	if (t.Path == "") == (t.URL == "") {
		return fmt.Errorf("tile %s: exactly one of path and url must be set", t.Name)
	}
	b := t.BBox
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e8 {
			return fmt.Errorf("tile %s: bbox %v", t.Name, b)
		}
	}
	if !(b[0] < b[2] && b[1] < b[3]) {
		return fmt.Errorf("tile %s: empty bbox %v", t.Name, b)
	}
	if cellsOf(b) > maxCellsTile {
		return fmt.Errorf("tile %s: bbox %v spans more than %d km2", t.Name, b, maxCellsTile)
	}
	return nil
}

// cellsOf returns the number of routing cells b overlaps.
func cellsOf(b [4]float64) int {
	nx := math.Floor(b[2]/cellM) - math.Floor(b[0]/cellM) + 1
	ny := math.Floor(b[3]/cellM) - math.Floor(b[1]/cellM) + 1
	return int(nx * ny)
}

// cellKey packs a routing cell into a map key.
func cellKey(cx, cy int32) uint64 { return uint64(uint32(cx))<<32 | uint64(uint32(cy)) }

// router maps routing cells to the tiles that overlap them.
type router map[uint64][]int32

func newRouter(ts []Tile) router {
	r := router{}
	for i, t := range ts {
		b := t.BBox
		for cx := int32(math.Floor(b[0] / cellM)); cx <= int32(math.Floor(b[2]/cellM)); cx++ {
			for cy := int32(math.Floor(b[1] / cellM)); cy <= int32(math.Floor(b[3]/cellM)); cy++ {
				k := cellKey(cx, cy)
				r[k] = append(r[k], int32(i))
			}
		}
	}
	return r
}

// lookup returns the tiles whose routing cell contains x, y (candidates:
// the caller checks the bbox).
func (r router) lookup(x, y float64) []int32 {
	if !(math.Abs(x) < 1e9 && math.Abs(y) < 1e9) {
		return nil
	}
	return r[cellKey(int32(math.Floor(x/cellM)), int32(math.Floor(y/cellM)))]
}
