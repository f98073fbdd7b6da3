package geoid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/svc-geodata/svc/raster"
)

// Load reads an operator's grid: a PROJ .gtx file, or a single-band
// GeoTIFF in geographic coordinates (degrees; GCG2016 as PROJ distributes
// it, or any geoid grid written by GDAL). The model's ID names the file.
func Load(path string) (*Model, error) {
	id := filepath.Base(path)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("geoid: %w", err)
	}
	switch {
	case strings.EqualFold(filepath.Ext(path), ".gtx"):
		return parseGTX(b, id)
	case len(b) >= 4 && (string(b[:4]) == "II*\x00" || string(b[:4]) == "MM\x00*" || string(b[:4]) == "II+\x00" || string(b[:4]) == "MM\x00+"):
		return parseTIFF(b, id)
	}
	return nil, fmt.Errorf("%w: %s is neither a .gtx file nor a GeoTIFF", ErrInvalid, id)
}

// geographic EPSG codes a geoid GeoTIFF may name (2D and 3D WGS84 and
// ETRS89 realisations, 10283/10284 ETRS89/DREF91/2016 as in PROJ-data's
// GCG2016); 0 (no code) is accepted when the extent is in degrees.
func geographic(epsg int) bool {
	switch epsg {
	case 0, 4326, 4979, 4258, 4937, 7931, 4989, 4936, 9059, 9000, 10283, 10284:
		return true
	}
	return false
}

func parseTIFF(b []byte, id string) (*Model, error) {
	ctx := context.Background()
	cog, err := raster.Open(ctx, raster.BytesSource(b), raster.NewCache(int64(len(b))*4+1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, id, err)
	}
	defer cog.Close()
	info := cog.Info()
	if !geographic(info.EPSG) {
		return nil, fmt.Errorf("%w: %s is in EPSG:%d; a geoid grid must be in geographic coordinates (degrees)", ErrInvalid, id, info.EPSG)
	}
	gt := info.GeoTransform
	if gt[2] != 0 || gt[4] != 0 || gt[1] <= 0 || gt[5] >= 0 {
		return nil, fmt.Errorf("%w: %s is rotated or flipped (geotransform %v)", ErrInvalid, id, gt)
	}
	if int64(info.Width)*int64(info.Height) > maxNodes {
		return nil, fmt.Errorf("%w: %s has %d x %d nodes", ErrInvalid, id, info.Width, info.Height)
	}
	g, err := cog.ReadGrid(ctx)
	if err != nil {
		if errors.Is(err, raster.ErrTooLarge) {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, id, err)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, id, err)
	}
	// The grid's rows run from the north; a Model's from the south (turned
	// in place: g.Data is the reader's fresh copy). Nodes sit at pixel
	// centres (the reader already shifted PixelIsPoint files).
	v := g.Data
	for r := range g.Height / 2 {
		top, bottom := v[r*g.Width:(r+1)*g.Width], v[(g.Height-1-r)*g.Width:(g.Height-r)*g.Width]
		for i := range top {
			top[i], bottom[i] = bottom[i], top[i]
		}
	}
	if g.Nodata != nil {
		nd := float32(*g.Nodata)
		for i, x := range v {
			if x == nd {
				v[i] = float32(math.NaN())
			}
		}
	}
	lon0 := gt[0] + gt[1]/2
	lat0 := gt[3] + gt[5]*(float64(g.Height)-0.5)
	return newModel(id, lon0, lat0, gt[1], -gt[5], g.Width, g.Height, v)
}
