package cmd

import (
	"fmt"
	"github.com/spf13/pflag"
	"github.com/svc-geodata/svc/geoid"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/tiles3d"
)

func newBuild() *cobra.Command {
	c := &cobra.Command{
		Use:   "build",
		Short: "Build derived artefacts (3D Tiles) from published packs",
		Long: `build derives static artefacts from the packs in the data directory and writes them as packs of their
own, published atomically like imports. A running server picks them up on SIGHUP or POST /v1/admin/datasets.

Every build works on --workers tiles at once (default: the number of CPUs); the output is the same byte
for byte whatever the number. A build rebuilds only the tiles whose inputs changed since the BL's
previous build of the same product (same options): the others are hard-linked from it, and the
output is the same as a build from scratch (docs/3d-tiles.md). It says how many tiles it built
and reused. Progress goes to stderr: a bar on a terminal, else a line every --progress-interval.`,
	}
	c.AddCommand(newBuildTileset(), newBuildTerrainMesh(), newBuildVegetation(), newBuildOSMCover(), newBuildSolar())
	c.PersistentPreRunE = sweepBefore
	return c
}

func newBuildTileset() *cobra.Command {
	var o tiles3d.Options
	var geoidPath string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "tileset --data DIR --bl BL",
		Short: "Build the 3D Tiles 1.1 tileset of a BL's LoD2 buildings",
		Long: `tileset writes a 3D Tiles 1.1 tileset (glb content, quadtree, a feature id per building with gmlid and
building_id as metadata, ECEF root transform) of the newest published LoD2 snapshot of the BL into
<data>/buildings/<bl>/<snapshot>/, with a new tileset id. Vertices are placed at GRS80 ellipsoidal heights:
the source's DHHN2016 height plus the undulation of the height model (--geoid; default the embedded
German quasigeoid GCG2016 of BKG), so the buildings sit right on any 3D globe.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.BL == "" {
				return fmt.Errorf("--bl is required")
			}
			var err error
			if o.HeightModel, err = loadGeoid(geoidPath); err != nil {
				return err
			}
			stop := buildProgress(c.ErrOrStderr(), &o.Progress, "build tileset", "buildings", logEvery)
			start := time.Now()
			var st tiles3d.BuildStats
			o.Stats = &st
			m, err := tiles3d.Build(c.Context(), o)
			stop()
			if err != nil {
				return err
			}
			printBuildStats(c.OutOrStdout(), &st)
			if st.Solar != "" {
				fmt.Fprintln(c.OutOrStdout(), st.Solar)
			}
			el := time.Since(start)
			fmt.Fprintf(c.OutOrStdout(), "built %s: tileset %s, %d buildings, %d tiles, %d bytes, in %s (%.0f buildings/s)\n",
				m.Key(), m.Tileset.TilesetID, m.Tileset.BuildingCount, m.Tileset.TileCount, m.Tileset.TotalBytes,
				el.Round(time.Millisecond), float64(m.Tileset.BuildingCount)/el.Seconds())
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.DataDir, "data", "./data", "data directory")
	f.StringVar(&o.BL, "bl", "", "BL code (bw by be bb hb hh he mv ni nrw rp sl sn st sh th)")
	f.IntVar(&o.MaxPerTile, "max-per-tile", 1000, "split quadtree cells holding more buildings")
	geoidFlag(f, &geoidPath)
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "tiles built concurrently")
	progressFlag(f, &logEvery)
	addEnvHelp(c)
	return c
}

func newBuildTerrainMesh() *cobra.Command {
	var o tiles3d.TerrainMeshOptions
	var geoidPath string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "terrain-mesh --data DIR --bl BL [--tolerance 0.5]",
		Short: "Build the terrain mesh 3D Tiles of a BL's DGM (RTIN, Draco-compressed b3dm)",
		Long: `terrain-mesh samples every DGM tile of the newest published terrain snapshot of the BL on a
lattice at least as fine as its pixels, triangulates it as a right-triangulated irregular network (RTIN) whose
vertical error against the samples is at most --tolerance metres, and writes one b3dm tile with a
Draco-compressed glTF per DGM tile plus a quadtree tileset.json (external tilesets under sub/ for a large BL) into
<data>/terrain-mesh/<bl>/<snapshot>/ (published as /v1/terrain-mesh/datasets). Heights are ellipsoidal
(DHHN2016 plus the undulation of --geoid, default the embedded German quasigeoid GCG2016).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.BL == "" {
				return fmt.Errorf("--bl is required")
			}
			var err error
			if o.HeightModel, err = loadGeoid(geoidPath); err != nil {
				return err
			}
			stop := buildProgress(c.ErrOrStderr(), &o.Progress, "build terrain-mesh", "tiles", logEvery)
			start := time.Now()
			var st tiles3d.BuildStats
			o.Stats = &st
			m, err := tiles3d.BuildTerrainMesh(c.Context(), o)
			stop()
			if err != nil {
				return err
			}
			printBuildStats(c.OutOrStdout(), &st)
			fmt.Fprintf(c.OutOrStdout(), "built %s: %d tiles, tolerance %g m, in %s\n", m.Key(), m.TerrainMesh.TileCount,
				m.TerrainMesh.RTINToleranceM, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.DataDir, "data", "./data", "data directory")
	f.StringVar(&o.BL, "bl", "", "BL code (bw by be bb hb hh he mv ni nrw rp sl sn st sh th)")
	f.Float64Var(&o.ToleranceM, "tolerance", 0.5, "maximum vertical error of the mesh in metres")
	f.IntVar(&o.GridSize, "grid", 0, "samples per tile edge, 2^k+1 (default: spacing at most the DGM pixel size)")
	geoidFlag(f, &geoidPath)
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "tiles meshed concurrently")
	progressFlag(f, &logEvery)
	addEnvHelp(c)
	return c
}

// geoidFlag adds --geoid (env SVC_GEOID) to a build or import command.
func geoidFlag(f *pflag.FlagSet, path *string) {
	f.StringVar(path, "geoid", "", "height model for the ellipsoidal heights of 3D content: gcg2016 (the default: BKG's German "+
		"quasigeoid, embedded; EGM96 beyond Germany), egm96 (the embedded EGM96 grid), or a file: a PROJ .gtx or a GeoTIFF grid in degrees")
}

// loadGeoid reads the --geoid model: "" is the embedded default (nil), the
// names gcg2016 and egm96 the embedded models, anything else a grid file. A
// grid that cannot be read is an error, never a silent fall-back.
func loadGeoid(path string) (*geoid.Model, error) {
	if path == "" {
		return nil, nil
	}
	if m, ok := geoid.ByName(path); ok {
		return m, nil
	}
	m, err := geoid.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--geoid %s: %w", path, err)
	}
	return m, nil
}

// printBuildStats says how many tiles a build computed and how many it
// linked from the BL's previous build (inputs unchanged), and why that
// build's tiles were not offered when they were not (an older svc).
func printBuildStats(w io.Writer, st *tiles3d.BuildStats) {
	if st.Stale != "" {
		fmt.Fprintf(w, "previous build not reused: %s; every tile built again\n", st.Stale)
	}
	fmt.Fprintf(w, "%d tiles built, %d reused from the previous build (inputs unchanged)\n", st.Built.Load(), st.Reused.Load())
}
