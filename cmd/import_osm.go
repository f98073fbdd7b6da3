package cmd

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/osmdata"
	"github.com/svc-geodata/svc/pack"
)

func newImportOSM() *cobra.Command {
	var o importer.Common
	var oo importer.OSMOptions
	var report string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "osm --bl BL --snapshot YYYY-MM-DD [--license odbl-1.0] [--clip-poly FILE.poly] FILE.osm.pbf",
		Short: "Import an OpenStreetMap extract (.osm.pbf or .osm) for the BL's OSM cover",
		Long: `osm reads an OpenStreetMap extract of the BL (a Geofabrik .osm.pbf, or OSM XML) in four
streaming passes (relations, ways, nodes, ways), keeping only what the OSM cover themes need: land-cover
areas (multipolygon relations assembled from their member ways, holes included), roads, paths and
rails with their width, lanes, layer, bridge and tunnel tags, and the coastline. Geometry is
projected to the BL's UTM zone and cut to the extent of the BL's published DGM (import the DGM
first; the cover is draped on it and its sea closed on that extent), or to the file's bounds
when the BL has no DGM or the extract does not meet it. Features lying wholly outside the BL's
boundary (BKG VG5000, with a 3 km margin) are left out, so a larger extract (Germany) gives the
BL's part, and an extract with nothing in the BL is refused, naming the state it lies in
(--force keeps everything). Relations or areas missing members at the extract's edge are
skipped, counted and named (id, where, why: the first three in the summary, all in --report
FILE); lines cut at the edge keep their pieces.

The sea is built from natural=coastline (land on its left). Extracts are cut by a box or a
polygon, so coastline chains stop at the cut: they are closed along the extract's boundary,
which is the polygon given with --clip-poly (the osmosis .poly the extract was cut by, e.g.
Geofabrik's), else the file's header bounds, else the box of the nodes its kept ways use, cut
to the clip extent.
Chains ending within 1 km of that boundary (ways cut by osmium's simple or smart strategy) are
carried to it; a chain that cannot be closed is named with its ways and why in the summary and
in --report FILE, and left out of the sea. Then run 'svc build osm-cover' (it needs the BL's
DGM: import it with 'svc import dgm' first).

--workers goroutines (default: every core) decode the PBF's blocks (OSM XML is decoded by one);
the pack is the same byte for byte for any number. Progress goes to stderr: a bar on a terminal,
else a line every --progress-interval; its MB count the four passes, each reading the whole file.
--resume and --strict, which the other imports take, do not apply: the import reads one file,
so there is no bad file to skip or stop at (a file it cannot read fails the import), and it
keeps no journal: nothing is published until it completes, and an interrupted import is run
again from the start (a state extract takes minutes).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if o.LicenseID == "" {
				o.LicenseID = "odbl-1.0"
			}
			start := time.Now()
			var sum importer.OSMSummary
			oo.Summary = &sum
			stop := importProgress(c.ErrOrStderr(), &o, "import osm", "features", logEvery)
			m, err := importer.OSMWith(c.Context(), o, args[0], oo)
			stop()
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
			if len(sum.Skipped) > 0 {
				fmt.Fprintln(c.OutOrStdout(), skippedSummary(sum.Skipped, m.OSM.SkippedRelations+m.OSM.SkippedWays))
			}
			if s := m.OSM.Sea; s != nil {
				fmt.Fprintln(c.OutOrStdout(), seaSummary(s))
			}
			if report != "" {
				if err := writeOSMReport(report, m.OSM, sum.Skipped); err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "report written to %s\n", report)
			}
			fmt.Fprintln(c.OutOrStdout(), osmNext(o.DataDir, m.BL))
			return nil
		},
	}
	commonFlags(c, &o)
	c.Flags().StringVar(&oo.ClipPoly, "clip-poly", "", "osmosis .poly file the extract was cut by: the coastline is closed along it (default: the file's header bounds)")
	c.Flags().StringVar(&report, "report", "", "write what the import left out to this file: every coastline chain left out of the sea, every way and relation skipped, by id and why")
	c.Flags().BoolVar(&o.Force, "force", false, "keep the features outside the BL's boundary too")
	c.Flags().IntVar(&o.Workers, "workers", runtime.NumCPU(), "goroutines decoding the PBF's blocks (the pack is the same byte for byte for any number)")
	c.Flags().DurationVar(&logEvery, "progress-interval", defaultLogEvery, progressIntervalUsage)
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

// seaSummary is the line an OSM import prints about its sea: the polygons
// and area, the chains closed along which boundary, and each chain left
// out with its ways and why (the first three; --report lists all).
func seaSummary(s *pack.OSMSea) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sea: %d polygons, %.2f km², %d of %d coastline chains closed along the %s", s.Polygons, s.AreaM2/1e6, s.Closed, s.Chains, s.Boundary)
	if s.Snapped > 0 {
		fmt.Fprintf(&b, " (%d ends cut by the extract carried to it, at most %.0f m)", s.Snapped, s.MaxSnapM)
	}
	if s.Warning != "" {
		b.WriteString("; WARNING: " + s.Warning)
	}
	if n := len(s.Unclosed); n > 0 {
		fmt.Fprintf(&b, "; NOT CLOSED, left out of the sea: %d chains", n)
		for i, u := range s.Unclosed {
			if i == 3 {
				fmt.Fprintf(&b, "; ... (%d more; --report FILE lists all)", n-3)
				break
			}
			fmt.Fprintf(&b, "; ways %s %s (at %.5f,%.5f)", joinIDs(u.Ways, 5), u.Reason, u.Lon, u.Lat)
		}
		if s.Boundary != "clip polygon" {
			b.WriteString("; if the extract was cut by a polygon, pass it with --clip-poly FILE.poly")
		}
	}
	return b.String()
}

// skippedSummary is the line an OSM import prints about the ways and
// relations it could not use: the first three by id, where and why
// (--report lists all).
func skippedSummary(sk []osmdata.Skip, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d:", total)
	for i, s := range sk {
		if i == 3 {
			fmt.Fprintf(&b, " ... (%d more; --report FILE lists all)", total-3)
			break
		}
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %d (%s)", s.Type, s.ID, s.Class)
		if s.Lon != 0 || s.Lat != 0 {
			fmt.Fprintf(&b, " at %.5f,%.5f", s.Lon, s.Lat)
		}
		b.WriteString(" " + s.Reason)
	}
	return b.String()
}

func joinIDs(ids []int64, show int) string {
	var parts []string
	for i, id := range ids {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(ids)-show))
			break
		}
		parts = append(parts, fmt.Sprint(id))
	}
	return strings.Join(parts, ", ")
}

// writeOSMReport writes, tab-separated after a header line, every
// coastline chain left out of the sea (all its ways, where it stops, why),
// every way and relation skipped (its id, where, its class and why) and
// the summary counts of the import.
func writeOSMReport(path string, o *pack.OSMInfo, skipped []osmdata.Skip) error {
	var b strings.Builder
	b.WriteString("# kind\tids\tlon\tlat\treason\n")
	if s := o.Sea; s != nil {
		for _, u := range s.Unclosed {
			fmt.Fprintf(&b, "coastline-not-closed\t%s\t%.7f\t%.7f\t%s\n", joinIDs(u.Ways, len(u.Ways)), u.Lon, u.Lat, u.Reason)
		}
		if s.Warning != "" {
			fmt.Fprintf(&b, "sea-over-land\t\t\t\t%s\n", s.Warning)
		}
		fmt.Fprintf(&b, "sea\t\t\t\t%d polygons, %.0f m², %d of %d chains closed along the %s, %d ends carried up to %.1f m\n",
			s.Polygons, s.AreaM2, s.Closed, s.Chains, s.Boundary, s.Snapped, s.MaxSnapM)
	} else {
		b.WriteString("sea\t\t\t\tno coastline in the extract\n")
	}
	for _, s := range skipped {
		at := "\t"
		if s.Lon != 0 || s.Lat != 0 {
			at = fmt.Sprintf("%.7f\t%.7f", s.Lon, s.Lat)
		}
		fmt.Fprintf(&b, "%s-skipped\t%d\t%s\t%s: %s\n", s.Type, s.ID, at, s.Class, s.Reason)
	}
	if n := o.SkippedRelations + o.SkippedWays; n > len(skipped) {
		fmt.Fprintf(&b, "skipped-not-listed\t\t\t\t%d more beyond the first %d\n", n-len(skipped), len(skipped))
	}
	fmt.Fprintf(&b, "skipped\t\t\t\t%d relations and %d ways missing members or nodes at the extract's edge\n", o.SkippedRelations, o.SkippedWays)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}
