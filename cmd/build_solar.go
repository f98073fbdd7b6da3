package cmd

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/solarbuild"
	"github.com/svc-geodata/svc/tiles3d"
)

// maxListedFailures bounds the failed buildings a build lists by name.
const maxListedFailures = 20

// defaultClimateCells bounds the default climate's cells a build keeps:
// the whole grid of Germany (43 x 50).
const defaultClimateCells = 43 * 50

func newBuildSolar() *cobra.Command {
	var o solarbuild.Options
	var blCode, irradiance, bbox string
	var logEvery time.Duration
	var cacheMB int
	c := &cobra.Command{
		Use:   "solar --data DIR --bl BL [--irradiance FILE]",
		Short: "Precompute the solar irradiation of every roof facet of a BL into a solar pack",
		Long: `solar computes, for every building of the published LoD2 pack of the BL, what GET
/v1/buildings/{gmlid}/solar computes on demand: the annual and monthly irradiation of each roof facet
under the climate, shaded by the terrain (the DGM packs in the LoD2 pack's CRS), the LoD2 buildings and
the CDSM crowns. The climate is the one the server uses: the file of --irradiance (the file 'svc serve
--irradiance' is given: a PVGIS TMY CSV/JSON or an EPW) or, without it, the built-in default climate of
Germany (CM SAF monthly means 2006-2025, 0.2° grid), each building under the cell of its first roof
vertex as the route chooses it; a building outside the grid is left out. It publishes
<data>/solar/<bl>/<LoD2 snapshot>/solar.sqlite; the route then answers from it ("computed":
"precomputed") while the LoD2 pack, the climate (the same file, or the default climate on a server
without --irradiance) and the terrain and vegetation packs are those it was computed with, and on
demand otherwise (docs/solar.md).

--workers buildings are computed at once; the file is the same byte for byte whatever the number.
Every --chunk building ids are checkpointed: a build that was interrupted (Ctrl-C, kill -9, a full
disk) continues with --resume. A building that fails is left out and named at the end; --strict
fails the build instead (its checkpoints are kept). --bbox restricts the build to an area.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if blCode == "" {
				return fmt.Errorf("--bl is required")
			}
			if bbox != "" {
				b, err := geo.ParseBBox(bbox)
				if err != nil {
					return fmt.Errorf("--bbox: %w", err)
				}
				o.BBox = &b
			}
			return runBuildSolar(c, o, blCode, irradiance, logEvery, cacheMB)
		},
	}
	f := c.Flags()
	f.StringVar(&o.DataDir, "data", "./data", "data directory")
	f.StringVar(&blCode, "bl", "", "BL code (bw by be bb hb hh he mv ni nrw rp sl sn st sh th)")
	f.StringVar(&irradiance, "irradiance", "", "climate file: a PVGIS TMY (CSV or JSON) or EnergyPlus EPW file, the one `svc serve --irradiance` gets; "+
		"without it the built-in default climate of Germany, as `svc serve` without --irradiance")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "buildings computed concurrently")
	f.BoolVar(&o.Resume, "resume", false, "continue an interrupted build of the same inputs from its checkpoints")
	f.BoolVar(&o.Strict, "strict", false, "fail the build when a building fails instead of leaving it out")
	f.Int64Var(&o.ChunkBuildings, "chunk", 1000, "building ids per checkpoint")
	f.IntVar(&cacheMB, "raster-cache-mb", 256, "MiB of decoded DGM/CDSM COG blocks kept in memory (as svc serve's): each roof's 10 km terrain horizon "+
		"and its crowns read blocks its neighbours read again")
	f.StringVar(&bbox, "bbox", "", "only the buildings meeting minLon,minLat,maxLon,maxLat (WGS84): a city first; the others are answered on demand")
	progressFlag(f, &logEvery)
	addEnvHelp(c)
	return c
}

func runBuildSolar(c *cobra.Command, o solarbuild.Options, blCode, irradiance string, logEvery time.Duration, cacheMB int) error {
	ctx := c.Context()
	climName := "built-in default (CM SAF monthly means, per 0.2° cell)"
	if irradiance != "" {
		clim, err := roofsolar.LoadClimate(ctx, irradiance)
		if err != nil {
			return fmt.Errorf("--irradiance: %w", err)
		}
		o.Climate, climName = clim, clim.File
	} else {
		// Every cell the BL's buildings touch is kept (a BL spans at most
		// some 500 of the grid's 2,150 cells, ~200 KB each): the buildings
		// are computed in id order, not by cell.
		o.DefaultClimate = roofsolar.NewDefaultClimates(defaultClimateCells)
	}
	cat := catalog.New(catalogOptionsWith(o.DataDir, raster.NewCache(int64(cacheMB)<<20)))
	v, err := cat.Reload(ctx)
	if err != nil {
		return err
	}
	defer cat.Close()
	lp, ok := v.Pack(pack.LoD2, blCode)
	if !ok || lp.LoD2 == nil {
		return &tiles3d.MissingError{Product: pack.LoD2, BL: blCode, DataDir: o.DataDir}
	}
	o.LoD2, o.LoD2Manifest = lp.LoD2, lp.Manifest
	o.Terrain, o.Vegetation = v.Rasters(pack.Terrain), v.Rasters(pack.Vegetation)
	stop := buildProgress(c.ErrOrStderr(), &o.Progress, "build solar", "buildings", logEvery)
	start := time.Now()
	res, err := solarbuild.Build(ctx, o)
	stop()
	out := c.OutOrStdout()
	if res.Restarted != "" {
		fmt.Fprintf(out, "started over: %s\n", res.Restarted)
	}
	if res.Resumed > 0 {
		fmt.Fprintf(out, "resumed: %d buildings were done\n", res.Resumed)
	}
	printFailures(out, res.Failed)
	if err != nil {
		if errors.Is(err, solarbuild.ErrFailed) || res.Computed > 0 || res.Resumed > 0 {
			return fmt.Errorf("%w; continue with --resume", err)
		}
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(out, "built %s: %d buildings, %d roof facets, climate %s, in %s (%d computed, %.1f buildings/s, %d workers)\n",
		res.Manifest.Key(), res.Info.Buildings, res.Info.Facets, climName, el.Round(time.Millisecond),
		res.Computed, float64(res.Computed)/el.Seconds(), o.Workers)
	return nil
}

// printFailures names the buildings a build left out and why.
func printFailures(w io.Writer, fs []solarbuild.Failure) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "%d buildings left out:\n", len(fs))
	for i, f := range fs {
		if i == maxListedFailures {
			fmt.Fprintf(w, "  ... and %d more\n", len(fs)-i)
			break
		}
		fmt.Fprintf(w, "  %s: %s\n", f.GMLID, f.Reason)
	}
}
