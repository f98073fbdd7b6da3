package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/export"
	"github.com/svc-geodata/svc/geo"
)

func newExport3TZ() *cobra.Command {
	var data, bbox string
	c := &cobra.Command{
		Use:   "3tz --data DIR --bbox minLon,minLat,maxLon,maxLat OUT.3tz",
		Short: "Write the building 3D Tiles of a bbox as one 3TZ archive",
		Long: `3tz writes the 3D Tiles of the LoD2 buildings of the published packs meeting the bbox (WGS84)
as a 3D Tiles archive (3TZ: a ZIP with the @3dtilesIndex1@ index), read by CesiumGS 3d-tiles-tools
and the 3D Tiles validator: each state's tileset pruned to the tiles whose bounding region meets
the bbox, with their content unchanged. The archive is written to a temporary file and renamed
when complete. See docs/offline-bundles.md.`,
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
			res, err := export.ThreeTZ(c.Context(), f, v, b)
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
				if errors.Is(err, export.ErrNoBuildings) {
					return fmt.Errorf("%w %s (published building tilesets: %d)", err, bbox, len(v.Packs("buildings")))
				}
				return err
			}
			st, _ := os.Stat(out)
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(c.OutOrStdout(), "wrote %s: buildings of %v, %d tiles, %d files, %d bytes, in %s\n",
				abs, res.BL, res.Tiles, res.Files, st.Size(), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&data, "data", "./data", "data directory")
	f.StringVar(&bbox, "bbox", "", "minLon,minLat,maxLon,maxLat (WGS84)")
	_ = c.MarkFlagRequired("bbox")
	addEnvHelp(c)
	return c
}
