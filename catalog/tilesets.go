package catalog

import (
	"errors"
	"sort"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
)

// ErrNoTileset reports a tileset id no published building tileset has.
var ErrNoTileset = errors.New("catalog: no such tileset")

// Tilesets returns the manifests of the published building tilesets (one per
// BL at most) whose bounding volume meets bboxWGS84, ordered by BL code.
// The answer is small whatever the bbox: all of Germany gives 16 at most.
func (v *View) Tilesets(bboxWGS84 geo.BBox) []pack.Manifest {
	var out []pack.Manifest
	for _, p := range v.tilesetPacks() {
		b := p.Manifest.Tileset.BoundingVolume
		if len(b) == 4 && bboxWGS84.Intersects(geo.BBox{MinLon: b[0], MinLat: b[1], MaxLon: b[2], MaxLat: b[3]}) {
			out = append(out, p.Manifest)
		}
	}
	return out
}

// Tileset returns the manifest of the published building tileset with the
// id (a UUID, compared without regard to case); ErrNoTileset when none has
// it, which is also the answer for an id of an older snapshot.
func (v *View) Tileset(id string) (pack.Manifest, error) {
	for _, p := range v.tilesetPacks() {
		if strings.EqualFold(p.Manifest.Tileset.TilesetID, id) {
			return p.Manifest, nil
		}
	}
	return pack.Manifest{}, ErrNoTileset
}

// tilesetPacks returns the published building packs that carry a tileset,
// by BL code.
func (v *View) tilesetPacks() []*Pack {
	var out []*Pack
	for _, p := range v.Packs(pack.Buildings3D) {
		if p.Manifest.Tileset != nil && p.Manifest.Tileset.TilesetID != "" {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manifest.BL < out[j].Manifest.BL })
	return out
}
