package cmd

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/pack"
)

func newImportOSM() *cobra.Command {
	var o importer.Common
	c := &cobra.Command{
		Use:   "osm --bl BL --snapshot YYYY-MM-DD [--license odbl-1.0] FILE.osm.pbf",
		Short: "Import an OpenStreetMap extract (.osm.pbf or .osm) for the BL's OSM cover",
		Long: `osm reads an OpenStreetMap extract of the BL (a Geofabrik .osm.pbf, or OSM XML) in three
streaming passes (relations, ways, nodes), keeping only what the OSM cover themes need: land-cover
areas (multipolygon relations assembled from their member ways, holes included), roads, paths and
rails with their width, lanes, layer, bridge and tunnel tags, and the coastline. Geometry is
projected to the BL's UTM zone and cut to the extent of the BL's published DGM (import the DGM
first; the cover is draped on it and its sea closed on that extent), or to the file's bounds
when the BL has no DGM or the extract does not meet it. Features lying wholly outside the BL's
boundary (BKG VG5000, with a 3 km margin) are left out, so a larger extract (Germany) gives the
BL's part, and an extract with nothing in the BL is refused, naming the state it lies in
(--force keeps everything). Relations or areas missing members at the extract's edge are
skipped and counted; lines cut at the edge keep their pieces. Then run 'svc build osm-cover'
(it needs the BL's DGM: import it with 'svc import dgm' first).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if o.LicenseID == "" {
				o.LicenseID = "odbl-1.0"
			}
			start := time.Now()
			m, err := importer.OSM(c.Context(), o, args[0])
			if err != nil {
				return err
			}
			total, classes := 0, make([]string, 0, len(m.OSM.Features))
			for k, n := range m.OSM.Features {
				total += n
				classes = append(classes, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(classes)
			fmt.Fprintf(c.OutOrStdout(), "imported %s: %d features (%s); skipped %d relations and %d ways missing members, %d outside the BL; in %s\n",
				m.Key(), total, strings.Join(classes, ", "), m.OSM.SkippedRelations, m.OSM.SkippedWays, m.OSM.OutsideExtent,
				time.Since(start).Round(time.Millisecond))
			fmt.Fprintln(c.OutOrStdout(), osmNext(o.DataDir, m.BL))
			return nil
		},
	}
	commonFlags(c, &o)
	c.Flags().BoolVar(&o.Force, "force", false, "keep the features outside the BL's boundary too")
	c.Flags().Lookup("license").Usage = "licence id (default odbl-1.0, the licence of OpenStreetMap)"
	addEnvHelp(c)
	return c
}

// osmNext is the hint printed after an OSM import: build the cover, or,
// when the data directory holds no finished DGM of the BL to drape it on,
// import one first.
func osmNext(dataDir, code string) string {
	build := fmt.Sprintf("svc build osm-cover --data %s --bl %s", dataDir, code)
	for _, f := range pack.List(dataDir) {
		if f.Key.Product == pack.Terrain && f.Key.BL == code && f.Err == nil && f.Manifest.Terrain != nil {
			return "next: " + build
		}
	}
	return fmt.Sprintf("next: the cover is draped on the terrain and %s has no DGM for %s: import one with "+
		"svc import dgm --data %s --bl %s --snapshot YYYY-MM-DD --license ID FILE..., then %s", dataDir, code, dataDir, code, build)
}
