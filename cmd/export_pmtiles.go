package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/raster"
)

func newExportPMTiles() *cobra.Command {
	var data, bbox string
	var layers []string
	var o maplayer.Export
	var cacheMB int
	c := &cobra.Command{
		Use:   "pmtiles --data DIR --bbox minLon,minLat,maxLon,maxLat --layers L[,L...] --maxzoom N [--minzoom M] OUT.pmtiles",
		Short: "Write the map tiles of a bbox as PMTiles v3 archives for offline use",
		Long: `pmtiles writes the XYZ map tiles of each chosen layer over the bbox (WGS84) at the given zooms
(clamped to the layer's own) into a PMTiles v3 archive, tile for tile the bytes the layer's /v1
route answers; 'svc serve --pmtiles OUT.pmtiles' serves them again without the source data, and
MapLibre's pmtiles:// protocol, QGIS and GDAL read them directly.

One archive per layer, as one MapLibre source is one archive: with one layer the archive is OUT;
with several, OUT.pmtiles becomes OUT-<layer>.pmtiles for each. The vector layers inside one tile
route (buildings and roofs) are one layer and one archive; naming either selects it.
Identical tiles (no-data, sea) are stored once. Tiles are made by --workers goroutines; the bytes
do not depend on their number. Each archive is written to a temporary file and renamed when
complete. See docs/offline-bundles.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			b, err := geo.ParseBBox(bbox)
			if err != nil {
				return fmt.Errorf("--bbox: %w", err)
			}
			o.BBox = b
			if !c.Flags().Changed("maxzoom") {
				return errors.New("--maxzoom is required")
			}
			if o.MinZoom < 0 || o.MaxZoom > 30 || o.MinZoom > o.MaxZoom {
				return fmt.Errorf("--minzoom %d, --maxzoom %d: want 0 <= minzoom <= maxzoom <= 30", o.MinZoom, o.MaxZoom)
			}
			cat := catalog.New(catalogOptionsWith(data, raster.NewCache(int64(cacheMB)<<20)))
			if _, err := cat.Reload(c.Context()); err != nil {
				return err
			}
			defer cat.Close()
			reg, err := mapLayers(cat)
			if err != nil {
				return err
			}
			chosen, err := reg.Select(layers)
			if err != nil {
				return err
			}
			if len(chosen) == 0 {
				return fmt.Errorf("--layers is empty: known layers are %s", strings.Join(reg.Names(), ", "))
			}
			for _, l := range chosen {
				out := args[0]
				if len(chosen) > 1 {
					out = strings.TrimSuffix(out, ".pmtiles") + "-" + l.Name + ".pmtiles"
				}
				if err := exportLayer(c.Context(), c.ErrOrStderr(), c.OutOrStdout(), out, l, o); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&data, "data", "./data", "data directory")
	f.StringVar(&bbox, "bbox", "", "minLon,minLat,maxLon,maxLat (WGS84)")
	f.StringSliceVar(&layers, "layers", nil, "layers to export, comma-separated (svc export pmtiles --help lists them in the error for an unknown one)")
	f.IntVar(&o.MinZoom, "minzoom", 0, "lowest zoom (raised to the layer's lowest)")
	f.IntVar(&o.MaxZoom, "maxzoom", 0, "highest zoom (lowered to the layer's highest); required")
	f.IntVar(&o.Workers, "workers", 0, "tiles made in parallel (0: all cores)")
	f.IntVar(&cacheMB, "raster-cache-mb", 256, "MiB of decoded terrain COG blocks kept in memory")
	_ = c.MarkFlagRequired("bbox")
	_ = c.MarkFlagRequired("layers")
	addEnvHelp(c)
	return c
}

// exportLayer writes one archive with progress on errw (a bar on a
// terminal, else a line every 10 s and at the end) and a summary on out.
func exportLayer(ctx context.Context, errw, out io.Writer, path string, l maplayer.Layer, o maplayer.Export) error {
	start := time.Now()
	done := tileProgress(errw, "export pmtiles "+l.Name, &o, defaultLogEvery)
	h, err := maplayer.WriteFile(ctx, path, l, o)
	done()
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(out, "wrote %s: layer %s, %s, zooms %d to %d, %d tiles (%d entries, %d distinct), %d bytes, in %s\n",
		abs, l.Name, h.TileType, h.MinZoom, h.MaxZoom, h.AddressedTiles, h.TileEntries, h.TileContents,
		h.LeafOffset+h.LeafLength, time.Since(start).Round(time.Millisecond))
	return nil
}

// tileProgress shows an export's progress on w like the imports do: a bar
// on a terminal, else plain lines every logEvery and a last one. It sets
// o.Progress and returns the function that ends the display.
func tileProgress(w io.Writer, what string, o *maplayer.Export, logEvery time.Duration) func() {
	start := time.Now()
	line := func(p maplayer.Progress) string {
		el := time.Since(start)
		rate := float64(p.Tiles) / max(el.Seconds(), 1e-9)
		eta := "-"
		if p.Tiles == p.TilesTotal {
			eta = "0s, done in " + el.Round(time.Millisecond).String()
		} else if rate > 0 {
			eta = time.Duration(float64(p.TilesTotal-p.Tiles) / rate * float64(time.Second)).Round(time.Second).String()
		}
		return fmt.Sprintf("%s: %d/%d tiles (%.0f %%), %.1f MB, %.0f tiles/s, ETA %s", what, p.Tiles, p.TilesTotal,
			100*float64(p.Tiles)/float64(max(p.TilesTotal, 1)), float64(p.Bytes)/1e6, rate, eta)
	}
	if p := newProgress(w); p != nil {
		var bar *mpb.Bar
		o.Progress = func(pr maplayer.Progress) {
			if bar == nil {
				bar = p.New(int64(pr.TilesTotal), mpb.BarStyle(), mpb.PrependDecorators(decor.Name(what+" "), decor.CountersNoUnit("%d / %d tiles")),
					mpb.AppendDecorators(decor.AverageSpeed(0, "%.0f tiles/s"), decor.Name("  ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
			}
			bar.SetCurrent(int64(pr.Tiles))
		}
		return func() {
			if bar != nil {
				bar.SetTotal(-1, true)
			}
			p.Wait()
		}
	}
	var last time.Time
	var latest maplayer.Progress
	pending := false
	o.Progress = func(pr maplayer.Progress) {
		latest, pending = pr, true
		if now := time.Now(); now.Sub(last) >= logEvery {
			last, pending = now, false
			fmt.Fprintln(w, line(pr))
		}
	}
	return func() {
		if pending {
			fmt.Fprintln(w, line(latest))
		}
	}
}
