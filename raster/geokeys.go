package raster

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// GeoKey ids (OGC GeoTIFF 1.1, section 7).
const (
	keyModelType      = 1024
	keyRasterType     = 1025
	keyGeographicType = 2048
	keyProjectedType  = 3072
	rasterPixelIsArea = 1
	rasterPixelIsPt   = 2
	modelProjected    = 1
	modelGeographic   = 2
	userDefined       = 32767
)

// georef is what the GeoTIFF tags say about placement.
type georef struct {
	gt           [6]float64
	hasGT        bool
	epsg         int
	pixelIsPoint bool
	nodata       *float64
}

// readGeoKeys returns the SHORT-valued GeoKeys of IFD d. Keys stored in the
// double or ASCII parameter tags are skipped: none of them is needed here.
func readGeoKeys(ctx context.Context, t *tiffFile, d *ifd) (map[uint16]uint16, error) {
	dir, ok, err := t.uints(ctx, d, tagGeoKeyDirectory)
	if err != nil || !ok {
		return nil, err
	}
	if len(dir) < 4 {
		return nil, fmt.Errorf("raster: GeoKeyDirectory of %d values: %w", len(dir), ErrCorrupt)
	}
	n := int(min(dir[3], geoKeyMaxCount))
	if len(dir) < 4+4*n {
		return nil, fmt.Errorf("raster: GeoKeyDirectory declares %d keys in %d values: %w", n, len(dir), ErrCorrupt)
	}
	keys := make(map[uint16]uint16, n)
	for i := range n {
		k := dir[4+4*i : 8+4*i]
		if k[1] == 0 && k[2] == 1 {
			keys[uint16(k[0])] = uint16(k[3])
		}
	}
	return keys, nil
}

// readGeoref reads the geotransform, EPSG code, raster type and nodata of
// the main IFD, following GDAL's interpretation (including the half-pixel
// shift for PixelIsPoint). Without georeferencing the geotransform is
// GDAL's default (0, 1, 0, 0, 0, 1).
func readGeoref(ctx context.Context, t *tiffFile, d *ifd) (georef, error) {
	g := georef{gt: [6]float64{0, 1, 0, 0, 0, 1}}
	keys, err := readGeoKeys(ctx, t, d)
	if err != nil {
		return g, err
	}
	g.pixelIsPoint = keys[keyRasterType] == rasterPixelIsPt
	if v := keys[keyProjectedType]; v != 0 && v != userDefined {
		g.epsg = int(v)
	} else if v := keys[keyGeographicType]; v != 0 && v != userDefined && keys[keyModelType] == modelGeographic {
		g.epsg = int(v)
	}
	if err := readTransform(ctx, t, d, &g); err != nil {
		return g, err
	}
	if g.hasGT && g.pixelIsPoint {
		// GDAL reports the corner of the pixel, not its centre (unless
		// GTIFF_POINT_GEO_IGNORE is set, which we do not model).
		g.gt[0] -= g.gt[1]*0.5 + g.gt[2]*0.5
		g.gt[3] -= g.gt[4]*0.5 + g.gt[5]*0.5
	}
	s, err := t.ascii(ctx, d, tagGDALNodata)
	if err != nil {
		return g, err
	}
	if s != "" {
		v, err := parseNodata(s)
		if err != nil {
			return g, err
		}
		g.nodata = &v
	}
	return g, nil
}

// readTransform fills g.gt from ModelTransformation or from one tiepoint
// and ModelPixelScale.
func readTransform(ctx context.Context, t *tiffFile, d *ifd, g *georef) error {
	m, err := t.floats(ctx, d, tagModelTransform)
	if err != nil {
		return err
	}
	if len(m) >= 16 {
		g.gt = [6]float64{m[3], m[0], m[1], m[7], m[4], m[5]}
		g.hasGT = true
		return nil
	}
	tp, err := t.floats(ctx, d, tagModelTiepoint)
	if err != nil {
		return err
	}
	sc, err := t.floats(ctx, d, tagModelPixelScale)
	if err != nil {
		return err
	}
	if len(tp) < 6 || len(sc) < 2 {
		return nil
	}
	g.gt = [6]float64{tp[3] - tp[0]*sc[0], sc[0], 0, tp[4] + tp[1]*sc[1], 0, -sc[1]}
	g.hasGT = true
	return nil
}

// parseNodata parses a GDAL_NODATA string the way GDAL does ("nan", "-9999",
// "1e+38"), wrapping [ErrCorrupt] when it is not a number.
func parseNodata(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "nan", "-nan":
		return math.NaN(), nil
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("raster: GDAL_NODATA %q: %w", s, ErrCorrupt)
	}
	return v, nil
}

// invGeoTransform inverts gt exactly like GDALInvGeoTransform, so pixel
// lookups agree with gdallocationinfo even at rounding edges. It returns
// false for a degenerate transform.
func invGeoTransform(gt [6]float64) ([6]float64, bool) {
	if gt[2] == 0 && gt[4] == 0 && gt[1] != 0 && gt[5] != 0 {
		return [6]float64{-gt[0] / gt[1], 1 / gt[1], 0, -gt[3] / gt[5], 0, 1 / gt[5]}, true
	}
	det := float64(gt[1]*gt[5]) - float64(gt[2]*gt[4])
	mag := max(math.Abs(gt[1]), math.Abs(gt[2]), math.Abs(gt[4]), math.Abs(gt[5]))
	if math.Abs(det) <= 1e-10*mag*mag || math.IsNaN(det) {
		return [6]float64{}, false
	}
	inv := 1 / det
	return [6]float64{
		(float64(gt[2]*gt[3]) - float64(gt[0]*gt[5])) * inv,
		gt[5] * inv,
		-gt[2] * inv,
		(float64(-gt[1]*gt[3]) + float64(gt[0]*gt[4])) * inv,
		-gt[4] * inv,
		gt[1] * inv,
	}, true
}
