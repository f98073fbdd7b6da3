package raster

// GeoTransform is Info().GeoTransform without copying the rest of Info:
// interpolation asks for it on every point.
func (c *COG) GeoTransform() [6]float64 { return c.info.GeoTransform }

// Levels is the number of resolution levels: 1 plus the overviews.
func (c *COG) Levels() int { return len(c.levels) }

// LevelGeoTransform is the geotransform of level li (0 full resolution).
func (c *COG) LevelGeoTransform(li int) [6]float64 { return c.levels[li].gt }
