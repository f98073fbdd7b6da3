package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/importer"
)

func newImportDGM() *cobra.Command {
	var o importer.Common
	var crs, mode, report string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "dgm --bl BL --snapshot YYYY-MM-DD --license ID [--crs EPSG:25832] [--mode convert|mirror|pass-through] [--workers N] [--resume] [--strict] [--report FILE] PATH...",
		Short: "Import DGM1 terrain tiles (GeoTIFF, XYZ, zip) into a BL terrain pack",
		Long: `dgm imports DGM1 terrain tiles into one terrain pack per BL and snapshot.
Each PATH is a GeoTIFF (.tif, any layout), an XYZ ASCII file (.xyz, .txt, also .gz; separators
space, comma or semicolon; rows in any order; gaps become NoData), a directory of them (searched
recursively) or a .zip of them. Every file becomes one tile named after its file stem.

Modes: convert (default) writes COGs (float32, 512 px tiles, DEFLATE with predictor 3, overviews,
NoData -9999) holding exactly the source values; mirror copies tiled GeoTIFFs (COGs) unchanged;
pass-through takes http(s) URLs of COGs, stores only their index and reads them live with HTTP
range requests. --crs defaults to the BL's CRS (EPSG:25833 for be bb mv sn, else EPSG:25832).

The import refuses tiles lying mostly (over half) outside the BL's boundary (with a 3 km margin,
so border tiles pass) and rasters that look like a canopy height model (low, a fifth or more
NoData or 0, many edges between empty land and vegetation), naming what they look like;
--force imports them anyway. URLs (pass-through) are judged by their extent only.
` + rasterRunHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o := o.Normalize()
			stop := importProgress(c.ErrOrStderr(), &o, "import dgm", "tiles", logEvery)
			start := time.Now()
			var sum importer.RasterSummary
			m, err := importer.DGM(c.Context(), o, importer.DGMOptions{CRS: crs, Mode: importer.Mode(mode), Summary: &sum}, args)
			stop()
			if err != nil {
				return rasterFailed(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "imported %s: %d tiles (%s), %s, in %s\n",
				m.Key(), m.Terrain.TileCount, m.Terrain.Source, m.CRS, time.Since(start).Round(time.Millisecond))
			return printRasterSummary(c.OutOrStdout(), sum, report)
		},
	}
	commonFlags(c, &o)
	c.Flags().StringVar(&crs, "crs", "", "CRS of the tiles: EPSG:25832 or EPSG:25833 (default: the BL's)")
	c.Flags().StringVar(&mode, "mode", "convert", "convert, mirror or pass-through")
	c.Flags().BoolVar(&o.Force, "force", false, "import even when the tiles lie outside the BL or look like a canopy model")
	runFlags(c, &o, &report, &logEvery)
	addEnvHelp(c)
	return c
}

func newImportVegetation() *cobra.Command {
	var o importer.Common
	var vo importer.VegetationOptions
	var mode, geoidPath, report string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "vegetation --bl BL --snapshot YYYY-MM-DD --license ID --cdsm PATH... [--tdsm PATH...] [--bridge-mask FILE]",
		Short: "Import canopy height (CDSM) and crown base (TDSM) rasters into a BL vegetation pack",
		Long: `vegetation imports canopy height rasters (CDSM: metres above ground, building-masked, NoData
where vegetation-free) and optionally crown base rasters (TDSM) into one vegetation pack per BL and
snapshot. Paths take the same forms and modes (convert, mirror) as 'svc import dgm'; --cdsm and
--tdsm are repeatable or comma-separated.

The pack also gets the 3D Tiles themes trees (single trees detected in the CDSM, instanced glTF)
and plantcover (RTIN mesh of the vegetation surface, Draco b3dm), standing on the BL's newest
terrain pack (import the DGM first; without one they stand at height 0; 'svc build vegetation'
rebuilds them later). --bridge-mask takes a GeoJSON FeatureCollection of Polygon/MultiPolygon
bridge decks in WGS84 lon/lat (RFC 7946; coordinates in metres of the BL CRS are accepted too):
CDSM and TDSM pixels within 1.0 m of a deck become NoData (SPEC 4.6; needs --mode convert). SPEC
4.6 expects a mask for he and ni from snapshot 2026-07-20; be has no official source.

The import refuses rasters lying mostly (over half) outside the BL's boundary (3 km margin) and
--cdsm/--tdsm rasters that look like a terrain model (median above 60 m, heights below -1 m, or
smooth and gapless), naming what they look like; --force imports them anyway.
` + rasterRunHelp,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if vo.HeightModel, err = loadGeoid(geoidPath); err != nil {
				return err
			}
			o := o.Normalize()
			stop := importProgress(c.ErrOrStderr(), &o, "import vegetation", "tiles", logEvery)
			start := time.Now()
			vo.Mode = importer.Mode(mode)
			var sum importer.RasterSummary
			vo.Summary = &sum
			m, err := importer.Vegetation(c.Context(), o, vo)
			stop()
			if err != nil {
				return rasterFailed(err)
			}
			n := 0
			for _, t := range m.Vegetation.Themes {
				n += int(t.TileCount)
			}
			fmt.Fprintf(c.OutOrStdout(), "imported %s: %d raster tiles in %d themes, %s, in %s\n",
				m.Key(), n, len(m.Vegetation.Themes), m.CRS, time.Since(start).Round(time.Millisecond))
			return printRasterSummary(c.OutOrStdout(), sum, report)
		},
	}
	commonFlags(c, &o)
	c.Flags().StringSliceVar(&vo.CDSM, "cdsm", nil, "canopy height raster files, directories or zips (required)")
	c.Flags().StringSliceVar(&vo.TDSM, "tdsm", nil, "crown base raster files, directories or zips")
	c.Flags().StringVar(&vo.CRS, "crs", "", "CRS of the rasters: EPSG:25832 or EPSG:25833 (default: the BL's)")
	c.Flags().StringVar(&mode, "mode", "convert", "convert or mirror")
	c.Flags().BoolVar(&o.Force, "force", false, "import even when the rasters lie outside the BL or look like a terrain model")
	c.Flags().StringVar(&vo.BridgeMask, "bridge-mask", "", "GeoJSON of bridge-deck polygons whose pixels (1.0 m buffer) become NoData")
	c.Flags().Float64Var(&vo.ToleranceM, "tolerance", 0.5, "maximum vertical error of the plantcover mesh in metres")
	geoidFlag(c.Flags(), &geoidPath)
	runFlags(c, &o, &report, &logEvery)
	addEnvHelp(c)
	return c
}

// rasterRunHelp explains the flags rasterRunFlags adds.
const rasterRunHelp = `
Tiles are converted --workers at a time (default: the number of CPUs); the pack is the same
byte for byte whatever the number. Each finished tile is journaled in a work directory beside
the snapshots (<data>/<product>/<bl>/.resume-<snapshot>/); nothing is published until every tile
is done and checked against the journal. After a kill, a full disk or an error, run the same
command with --resume: finished tiles are not converted again. Tiles whose source bytes are
unchanged since the BL's previous snapshot (SHA-256 of the source, same mode, CRS and mask) are
linked from it instead of converted. A bad source (unreadable, wrong CRS, no georeferencing) is
skipped and named with its reason in the summary and in --report, unless --strict. Progress
goes to stderr: a bar on a terminal, else a line every --progress-interval.`

// printRasterSummary says what the import converted, reused and resumed,
// lists the bad sources left out as the LoD2 import lists its bad files
// and writes them to the --report in the LoD2 report's columns (no id,
// status bad-file, the source, why).
func printRasterSummary(w io.Writer, s importer.RasterSummary, report string) error {
	fmt.Fprintf(w, "%d tiles converted, %d reused from the previous snapshot (unchanged source), %d resumed\n",
		s.Converted, s.Reused, s.Resumed)
	printBadFiles(w, s.BadFiles)
	if report == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("# tile\tstatus\tsource\treason\n")
	for _, f := range s.BadFiles {
		fmt.Fprintf(&b, "\tbad-file\t%s\t%s\n", f.Name, oneLine(f.Reason))
	}
	if err := os.WriteFile(report, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(w, "bad files written to %s\n", report)
	return nil
}

// rasterFailed adds the --resume hint to a failed raster import's error.
func rasterFailed(err error) error {
	if !importer.Resumable(err) {
		return err
	}
	return fmt.Errorf("%w\nfinished tiles are kept: run the same command with --resume to continue", err)
}
