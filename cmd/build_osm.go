package cmd

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/tiles3d"
)

func newBuildOSMCover() *cobra.Command {
	var o tiles3d.OSMCoverOptions
	var geoidPath string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "osm-cover --data DIR --bl BL [--step 10] [--geoid FILE]",
		Short: "Build the OSM cover 3D Tiles of a BL (surface, transport, canopy, sea)",
		Long: `osm-cover turns the newest osm pack of the BL (svc import osm) into the land-cover themes of
SPEC 2.9 under <data>/osm-cover/<bl>/<snapshot>/<theme>/tileset.json, listed by /v1/osm-cover/datasets
after the next rescan (SIGHUP or POST /v1/admin/datasets):
  surface    land-cover areas, a colour and a class per feature
  transport  roads, paths and rails as ribbons of their width; bridges at deck height, no tunnels
  canopy     the BL's vegetation surface from its CDSM (when the BL has a vegetation pack)
  sea        flat sea at 0 m DHHN2016 from the coastline (coastal BL whose extract has one)
Areas and ribbons are cut on a --step grid and draped on the terrain mesh of the BL's DGM (import the
DGM first): every vertex lies 0.2 m (transport 0.35 m) above it. Heights are ellipsoidal (DHHN2016 plus
the undulation of --geoid, default the embedded German quasigeoid GCG2016), like the terrain mesh. Every GLB carries
the class, OSM id and name of its features (EXT_mesh_features, EXT_structural_metadata) and
"© OpenStreetMap contributors" (ODbL 1.0) as its copyright.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.BL == "" {
				return fmt.Errorf("--bl is required")
			}
			if code := bl.Canonical(o.BL); code != "" {
				o.BL = code
			}
			var err error
			if o.HeightModel, err = loadGeoid(geoidPath); err != nil {
				return err
			}
			stop := buildProgress(c.ErrOrStderr(), &o.Progress, "build osm-cover", "tiles", logEvery)
			start := time.Now()
			var st tiles3d.BuildStats
			o.Stats = &st
			m, err := tiles3d.BuildOSMCover(c.Context(), o)
			stop()
			if err != nil {
				return err
			}
			printBuildStats(c.OutOrStdout(), &st)
			var parts []string
			for _, t := range m.OSMCover.Themes {
				parts = append(parts, fmt.Sprintf("%s %d tiles", t.Name, t.TileCount))
			}
			fmt.Fprintf(c.OutOrStdout(), "built %s: %s, in %s\n", m.Key(), strings.Join(parts, ", "), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.DataDir, "data", "./data", "data directory")
	f.StringVar(&o.BL, "bl", "", "BL code (bw by be bb hb hh he mv ni nrw rp sl sn st sh th)")
	f.Float64Var(&o.StepM, "step", 10, "grid in metres the areas are cut into to follow the terrain")
	geoidFlag(f, &geoidPath)
	progressFlag(f, &logEvery)
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "DGM tiles built concurrently")
	addEnvHelp(c)
	return c
}
