package tiles3d

import (
	"errors"
	"fmt"
	"github.com/svc-geodata/svc/raster"
	"math"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
)

// ErrHeightModel reports a height model that does not cover a tile.
var ErrHeightModel = errors.New("tiles3d: height model does not cover the data")

// HeightVertical says what the heights of every tileset are; written to
// tileset.json next to the model's ID.
const HeightVertical = "GRS80 ellipsoidal height h = H + N (H: DHHN2016 normal height, N: the height model's undulation)"

// heightModel is m, or the embedded default.
func heightModel(m *geoid.Model) *geoid.Model {
	if m == nil {
		return geoid.Default()
	}
	return m
}

// lift makes the tile frame f (local x east and y north in the UTM grid of
// zone z around e, n; local z the DHHN2016 height H) place a vertex at the
// ellipsoidal height H + N. N is modelled over the tile as the plane through
// N at the centre with the grid gradients taken over the tile's half-size
// half: the geoid grids are bilinear in cells of many kilometres, so over a
// tile of a few kilometres the plane stays within millimetres to a few
// centimetres of the grid's own interpolation (measured in the tests). It
// returns the lifted frame and the range of N over the tile, for the
// tile's bounding region.
func lift(f frame, m *geoid.Model, z geo.Zone, e, n, half float64) (frame, float64, float64, error) {
	h := math.Max(half, 50)
	at := func(x, y float64) (float64, error) {
		lon, lat := geo.FromUTM(z, x, y)
		v, ok := m.Undulation(lon, lat)
		if !ok {
			return 0, fmt.Errorf("%w: %s has no value at lon %.5f, lat %.5f", ErrHeightModel, m.ID(), lon, lat)
		}
		return v, nil
	}
	var s [9]float64
	for i, d := range [9][2]float64{{0, 0}, {h, 0}, {-h, 0}, {0, h}, {0, -h}, {h, h}, {-h, h}, {h, -h}, {-h, -h}} {
		v, err := at(e+d[0], n+d[1])
		if err != nil {
			return frame{}, 0, 0, err
		}
		s[i] = v
	}
	gx, gy := (s[1]-s[2])/(2*h), (s[3]-s[4])/(2*h)
	up := f.col[2]
	for k := range 3 {
		f.col[0][k] += up[k] * gx
		f.col[1][k] += up[k] * gy
		f.t[k] += up[k] * s[0]
	}
	lo, hi := s[0], s[0]
	for _, v := range s[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return f, lo, hi, nil
}

// assetOf is a tileset's asset object: version and generator, and in extras
// the height model and the data's attribution (tileset.json has no
// copyright member; each tile's glTF carries it as asset.copyright).
func assetOf(version, generator, heightModel, attribution string) map[string]any {
	extras := map[string]any{"height_model": heightModel, "vertical": HeightVertical}
	if attribution != "" {
		extras["copyright"] = attribution
	}
	return map[string]any{"version": version, "generator": generator, "extras": extras}
}

// withCredit is the attribution written into tiles and tilesets: the
// data's, then the credit the height model's licence asks for (BKG's for
// GCG2016), since every vertex height carries the model's undulation.
func withCredit(attribution string, m *geoid.Model) string {
	c := m.Attribution()
	switch {
	case c == "" || strings.Contains(attribution, c):
		return attribution
	case attribution == "":
		return c
	}
	return attribution + "; " + c
}

// checkCovers validates m over a pack's WGS84 box (minLon, minLat, maxLon,
// maxLat; absent boxes are not checked here, the tiles are).
func checkCovers(m *geoid.Model, bbox []float64) error {
	if len(bbox) != 4 {
		return nil
	}
	if err := m.Validate(bbox[0], bbox[1], bbox[2], bbox[3]); err != nil {
		return fmt.Errorf("%w: %w", ErrHeightModel, err)
	}
	return nil
}

// buildCacheBytes bounds the decoded DGM blocks a build keeps: a state has
// thousands of tiles, each read once or twice.
const buildCacheBytes = 256 << 20

// buildCache is c, or a cache shared by every tile of the build when the
// caller gives none: terrain.OpenPack's fallback (a private cache per tile)
// kept every decoded block of a state's 1,254 DGM tiles, 9.8 GB.
func buildCache(c *raster.Cache) *raster.Cache {
	if c != nil {
		return c
	}
	return raster.NewCache(buildCacheBytes)
}
