package cmd

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/terrain"
)

func newQuery() *cobra.Command {
	c := &cobra.Command{
		Use:   "query",
		Short: "Answer point questions from the published packs without a server",
	}
	c.AddCommand(newQueryElevation(), newQueryCanopy())
	return c
}

// pointFlags are the flags of a point query: the data directory and a WGS84
// point, checked as the HTTP route checks lat and lon.
type pointFlags struct {
	data     string
	lat, lon float64
}

func (p *pointFlags) add(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&p.data, "data", "./data", "data directory")
	f.Float64Var(&p.lat, "lat", 0, "WGS84 latitude, degrees")
	f.Float64Var(&p.lon, "lon", 0, "WGS84 longitude, degrees")
	_ = c.MarkFlagRequired("lat")
	_ = c.MarkFlagRequired("lon")
}

func (p *pointFlags) point() (geo.LonLat, error) {
	if !(p.lat >= -90 && p.lat <= 90) || !(p.lon >= -180 && p.lon <= 180) {
		return geo.LonLat{}, fmt.Errorf("--lat must be within ±90 and --lon within ±180, not %g, %g", p.lat, p.lon)
	}
	return geo.LonLat{Lon: p.lon, Lat: p.lat}, nil
}

// answer opens the published packs of the data directory, asks ask and
// prints its answer as the HTTP route's JSON body; the misses of a point
// (outside, NoData) are one plain line.
func (p *pointFlags) answer(c *cobra.Command, what string, ask func(*catalog.View, geo.LonLat) (any, error)) error {
	pt, err := p.point()
	if err != nil {
		return err
	}
	cat := catalog.New(catalogOptions(p.data))
	v, err := cat.Reload(c.Context())
	if err != nil {
		return err
	}
	defer cat.Close()
	res, err := ask(v, pt)
	switch {
	case errors.Is(err, terrain.ErrOutside):
		return fmt.Errorf("no published %s dataset in %s covers lon %g, lat %g", what, p.data, pt.Lon, pt.Lat)
	case errors.Is(err, terrain.ErrNoData):
		return fmt.Errorf("the %s raster holds no value at lon %g, lat %g (NoData)", what, pt.Lon, pt.Lat)
	case err != nil:
		return err
	}
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.OutOrStdout(), "%s\n", body)
	return err
}

func newQueryElevation() *cobra.Command {
	var p pointFlags
	var interp string
	c := &cobra.Command{
		Use:   "elevation --data DIR --lat LAT --lon LON [--interpolation nearest|bilinear|cubic]",
		Short: "Print the DGM1 height at a point, as GET /v1/terrain/elevation answers it",
		Long: `elevation samples the published terrain packs of the data directory at a WGS84 point with the
code of GET /v1/terrain/elevation and prints the same JSON body (elevation_m above NHN, DHHN2016).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			m, ok := terrain.ParseInterpolation(interp)
			if !ok {
				return fmt.Errorf("--interpolation must be one of %v, not %q", terrain.Interpolations, interp)
			}
			return p.answer(c, "terrain", func(v *catalog.View, pt geo.LonLat) (any, error) {
				return query.ElevationAt(c.Context(), v, pt, m)
			})
		},
	}
	p.add(c)
	c.Flags().StringVar(&interp, "interpolation", "nearest", "nearest, bilinear or cubic")
	addEnvHelp(c)
	return c
}

func newQueryCanopy() *cobra.Command {
	var p pointFlags
	var trunk bool
	c := &cobra.Command{
		Use:   "canopy --data DIR --lat LAT --lon LON [--trunk=false]",
		Short: "Print the canopy height at a point, as GET /v1/vegetation/canopy answers it",
		Long: `canopy samples the published vegetation packs of the data directory at a WGS84 point with the
code of GET /v1/vegetation/canopy and prints the same JSON body (heights above ground).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return p.answer(c, "vegetation", func(v *catalog.View, pt geo.LonLat) (any, error) {
				return query.CanopyAt(c.Context(), v, pt, trunk)
			})
		},
	}
	p.add(c)
	c.Flags().BoolVar(&trunk, "trunk", true, "also read the crown base")
	addEnvHelp(c)
	return c
}
