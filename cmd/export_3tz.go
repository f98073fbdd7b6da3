package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/export"
	"github.com/svc-geodata/svc/geo"
)

func newExport3TZ() *cobra.Command {
	var data, bbox string
	var contents []string
	c := &cobra.Command{
		Use:   "3tz --data DIR --bbox minLon,minLat,maxLon,maxLat [--content buildings,terrain-mesh,osm-cover] OUT.3tz",
		Short: "Write the 3D Tiles of a bbox (buildings, terrain mesh, OSM cover) as one 3TZ archive",
		Long: `3tz writes the 3D Tiles of the published packs meeting the bbox (WGS84) - LoD2 buildings, terrain
mesh, OSM land cover themes (--content) - as a 3D Tiles archive (3TZ: a ZIP with the @3dtilesIndex1@
index), read by CesiumGS 3d-tiles-tools and the 3D Tiles validator: each tileset pruned to the tiles
whose bounding region meets the bbox, with their content unchanged; several tilesets become the
children of one root tileset.json. The archive is written to a temporary file and renamed when
complete. See docs/offline-bundles.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			b, err := geo.ParseBBox(bbox)
			if err != nil {
				return fmt.Errorf("--bbox: %w", err)
			}
			cat := catalog.New(catalogOptions(data))
			v, err := cat.Reload(c.Context())
			if err != nil {
				return err
			}
			defer cat.Close()
			start := time.Now()
			out := args[0]
			f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
			if err != nil {
				return err
			}
			defer os.Remove(f.Name())
			for _, ct := range contents {
				if !slices.Contains(export.TZContents, ct) {
					return fmt.Errorf("--content %q: known are %s", ct, strings.Join(export.TZContents, ", "))
				}
			}
			res, err := export.ThreeTZ(c.Context(), f, v, b, contents)
			if err == nil {
				err = f.Sync()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Chmod(f.Name(), 0o644)
			}
			if err == nil {
				err = os.Rename(f.Name(), out)
			}
			if err != nil {
				if errors.Is(err, export.ErrNoTiles) {
					return fmt.Errorf("%w %s (--content %s)", err, bbox, strings.Join(contents, ","))
				}
				return err
			}
			st, _ := os.Stat(out)
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(c.OutOrStdout(), "wrote %s: %s, %d tiles, %d files, %d bytes, in %s\n",
				abs, strings.Join(res.Tilesets, " "), res.Tiles, res.Files, st.Size(), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&data, "data", "./data", "data directory")
	f.StringVar(&bbox, "bbox", "", "minLon,minLat,maxLon,maxLat (WGS84)")
	f.StringSliceVar(&contents, "content", []string{"buildings"}, "tilesets to pack: buildings, terrain-mesh, osm-cover (comma-separated)")
	_ = c.MarkFlagRequired("bbox")
	addEnvHelp(c)
	return c
}
