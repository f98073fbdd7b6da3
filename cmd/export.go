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
	"github.com/svc-geodata/svc/lod2store"
)

func newExport() *cobra.Command {
	c := &cobra.Command{
		Use:   "export",
		Short: "Export artefacts from the published packs without a server",
	}
	c.AddCommand(newExportGLB(), newExportPMTiles(), newExport3TZ())
	return c
}

func newExportGLB() *cobra.Command {
	var data, bbox, out string
	var draco bool
	r := export.GLBRequest{MaxAreaKM2: 250, MaxBuildings: 1_000_000}
	c := &cobra.Command{
		Use:   "glb --data DIR --bbox minLon,minLat,maxLon,maxLat [-o FILE] [--draco] [framing flags]",
		Short: "Write the buildings of a bbox as one GLB, as GET /v1/buildings/3d.glb does",
		Long: `glb writes every LoD2 building meeting the bbox (WGS84) of the published packs in the data
directory as one GLB, with the code and the defaults of GET /v1/buildings/3d.glb (byte-identical
for the same parameters and data), within the admin limits of that route (250 km2, 1,000,000
buildings). The origin is the bbox centre (or its south-west corner) in the UTM zone of the centre.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			b, err := geo.ParseBBox(bbox)
			if err != nil {
				return fmt.Errorf("--bbox: %w", err)
			}
			r.BBox = b
			cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
			v, err := cat.Reload(c.Context())
			if err != nil {
				return err
			}
			defer cat.Close()
			start := time.Now()
			res, err := export.GLB(c.Context(), export.SourcesIn(v, b), r)
			var tl *export.TooLargeError
			if errors.As(err, &tl) {
				return errors.New(tl.Detail)
			}
			if err != nil {
				return err
			}
			var body []byte
			if draco {
				if body, err = res.Builder.DracoGLB(); err != nil {
					return err
				}
			} else if body, err = res.Builder.GLB(); err != nil {
				return err
			}
			if out == "" {
				out = "buildings.glb"
			}
			if err := os.WriteFile(out, body, 0o644); err != nil {
				return err
			}
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(c.OutOrStdout(), "wrote %s: %d buildings of %v, %d bytes, origin E %.3f N %.3f (EPSG:%d), in %s\n",
				abs, res.Builder.Buildings(), res.BL, len(body), res.Anchor.E, res.Anchor.N, res.Anchor.Zone.EPSG(),
				time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&data, "data", "./data", "data directory")
	f.StringVar(&bbox, "bbox", "", "minLon,minLat,maxLon,maxLat (WGS84)")
	f.StringVarP(&out, "out", "o", "buildings.glb", "output file")
	f.BoolVar(&draco, "draco", false, "Draco-compress the mesh (KHR_draco_mesh_compression)")
	f.StringVar(&r.ZBase, "z-base", "per_building", "per_building, bbox_min or absolute")
	f.StringVar(&r.Frame, "target-frame", "utm", "utm or mercator")
	f.StringVar(&r.Origin, "origin", "center", "center or corner")
	f.BoolVar(&r.Colorize, "colorize-roofs", false, "colour roofs by orientation")
	f.BoolVar(&r.Merge, "merge-buildings", true, "one mesh per surface class instead of one per building")
	f.BoolVar(&r.Ground, "include-ground", true, "include ground surfaces")
	f.BoolVar(&r.Features, "feature-metadata", true, "buildings as features with their attributes (EXT_mesh_features, EXT_structural_metadata)")
	f.Float64Var(&r.RotateX, "rotate-x", 0, "rotation about X in degrees (-90 for Y-up viewers)")
	f.Float64Var(&r.RotateZ, "rotate-z", 0, "rotation about Z in degrees")
	f.Float64Var(&r.WeldM, "weld-tolerance-m", 0, "weld vertices closer than this (metres)")
	addEnvHelp(c)
	return c
}
