package cmd

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/tiles3d"
)

func newBuildVegetation() *cobra.Command {
	var o tiles3d.BuildVegetationOptions
	var geoidPath string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "vegetation --data DIR --bl BL [--tolerance 0.5]",
		Short: "Rebuild the trees and plantcover 3D Tiles of a BL's newest vegetation pack",
		Long: `vegetation rebuilds the 3D Tiles themes of the newest published vegetation pack of the BL and
publishes them as a new version of the same snapshot (the CDSM/TDSM COGs are kept, hard-linked):
trees: single trees detected in the CDSM (local maxima of at least 3 m, 3 m apart, crown radius from
the canopy's extent), one glb per CDSM tile instancing a trunk-and-crown model with
EXT_mesh_gpu_instancing (3D Tiles 1.1); plantcover: the vegetation surface (ground plus canopy) as an
RTIN of at most --tolerance metres error, one Draco b3dm per CDSM tile (for be, he and ni from
snapshot 2026-07-20 with COLOR_0 and without curtain triangles, SPEC 2.10). Trees and mesh stand on
the BL's newest terrain pack, else at height 0. 'svc import vegetation' builds the same themes
itself; run this after importing the DGM later or to change the tolerance.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.BL == "" {
				return fmt.Errorf("--bl is required")
			}
			var err error
			if o.HeightModel, err = loadGeoid(geoidPath); err != nil {
				return err
			}
			stop := buildProgress(c.ErrOrStderr(), &o.Progress, "build vegetation", "tiles", logEvery)
			start := time.Now()
			var st tiles3d.BuildStats
			o.Stats = &st
			m, err := tiles3d.BuildVegetation(c.Context(), o)
			stop()
			if err != nil {
				return err
			}
			printBuildStats(c.OutOrStdout(), &st)
			for _, t := range m.Vegetation.Themes {
				fmt.Fprintf(c.OutOrStdout(), "%s %s: %d tiles\n", m.Key(), t.Name, t.TileCount)
			}
			fmt.Fprintf(c.OutOrStdout(), "built %s in %s\n", m.Key(), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.DataDir, "data", "./data", "data directory")
	f.StringVar(&o.BL, "bl", "", "BL code (bw by be bb hb hh he mv ni nrw rp sl sn st sh th)")
	f.Float64Var(&o.ToleranceM, "tolerance", 0.5, "maximum vertical error of the plantcover mesh in metres")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "tiles built concurrently")
	geoidFlag(f, &geoidPath)
	progressFlag(f, &logEvery)
	addEnvHelp(c)
	return c
}
