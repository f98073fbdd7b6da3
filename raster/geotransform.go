package raster

// GeoTransform is Info().GeoTransform without copying the rest of Info:
// interpolation asks for it on every point.
func (c *COG) GeoTransform() [6]float64 { return c.info.GeoTransform }
