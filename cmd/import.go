package cmd

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"

	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/pack"
)

func newImport() *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "Import source data as the state portals deliver it into packs",
		Long: `import reads source files and writes a new snapshot pack of one BL into the data directory.
The pack becomes visible only when the import finished; on any error the previous snapshot stays
published and nothing of the failed import remains. A running server picks up the new pack on
SIGHUP or POST /v1/admin/datasets.`,
	}
	c.AddCommand(newImportLoD2(), newImportDGM(), newImportVegetation(), newImportOSM(), newImportPrune())
	c.PersistentPreRunE = sweepBefore
	return c
}

// commonFlags registers the flags every importer shares.
func commonFlags(c *cobra.Command, o *importer.Common) {
	f := c.Flags()
	f.StringVar(&o.DataDir, "data", "./data", "data directory")
	f.StringVar(&o.BL, "bl", "", "BL code (bw by be bb hb hh he mv ni nrw rp sl sn st sh th)")
	f.StringVar(&o.Snapshot, "snapshot", "", "date of the source download, YYYY-MM-DD")
	f.StringVar(&o.LicenseID, "license", "", "licence id: dl-de-zero-2.0, dl-de-by-2.0, cc-by-4.0 or odbl-1.0")
	f.StringVar(&o.SourceURL, "source-url", "", "where the source was downloaded")
	f.StringVar(&o.Name, "name", "", "display name of the dataset (default: derived from BL and licence)")
	// --bl, --snapshot and --license are required; the importer checks them
	// (after the environment applied, which cobra's required-flag check
	// would not see).
}

func newImportLoD2() *cobra.Command {
	var o importer.Common
	var report string
	var logEvery time.Duration
	c := &cobra.Command{
		Use:   "lod2 --bl BL --snapshot YYYY-MM-DD --license ID PATH...",
		Short: "Import LoD2 CityGML (files, directories or zip archives) into a BL pack",
		Long: `lod2 imports CityGML 1.0 or 2.0 LoD2 buildings into one SpatiaLite file per BL and snapshot.
Each PATH is a .gml/.xml file, a directory of them (searched recursively) or a .zip of them.
All files must use the same CRS (EPSG:25832 or EPSG:25833, compound height CRS allowed).
Wall, roof and ground surfaces are kept; closure surfaces are skipped.

The import refuses files whose CRS or building ids say they belong to another BL, and files
whose buildings lie mostly (over half) outside the BL's boundary (BKG VG5000, 3 km margin, so
border tiles pass), naming the state they lie in; --force imports them anyway. --report lists
every invalid building with why: the surface, the failed check and a coordinate.

--workers files (default: every core) are parsed, validated and encoded at once; one writer adds
them in input order, so the pack is the same byte for byte whatever the number. A bad file
(malformed XML, an unreadable zip entry, another CRS than the first file's) is skipped whole and
listed with why in the summary and --report; --strict stops the import at it instead. Progress
goes to stderr: a bar on a terminal, else a line every --progress-interval.

An import is resumable: it works in <data>/lod2/<bl>/.resume-<snapshot>/ and checkpoints every
16 MiB of input; after a kill, Ctrl-C, a full disk or --strict stopping it, the same command with
--resume continues from the last checkpoint without reading the files before it (without
--resume the interrupted import is discarded). Files whose content (SHA-256) is unchanged from
the newest other published snapshot of the BL are not parsed again: the new pack is a copy of that
snapshot's with the rows of the files gone or changed replaced (the changed files' surfaces get new
ids; everything else a user sees equals a full import's), or, where that cannot keep the order of a
full import, a new pack into which their rows are copied. The previous snapshot is only read.
Like rsync, a file whose path (relative to the directory given; a zip's name and entry), size and
modification time (to the nanosecond) equal that snapshot's record of a file is taken as unchanged
without being read; any difference and it is hashed. A file edited in place keeping its size and
time (touch -d) is then missed: --checksum hashes every file, like rsync -c.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			stop := importProgress(c.ErrOrStderr(), &o, "import lod2", "buildings", logEvery)
			start := time.Now()
			var sum importer.LoD2Summary
			o := o.Normalize()
			o.Summary = &sum
			m, err := importer.LoD2(c.Context(), o, args)
			stop()
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			if sum.ResumedFiles > 0 {
				fmt.Fprintf(out, "resumed: %d of %d files were done by the interrupted import (not read again)\n", sum.ResumedFiles, sum.Files)
			}
			switch {
			case sum.ReusedFiles > 0 && sum.Patched:
				fmt.Fprintf(out, "reused %d unchanged files of snapshot %s (its pack patched: only the changed files written; %d not read: same path, size and time); parsed %d\n", sum.ReusedFiles, sum.ReusedFrom, sum.UnreadFiles, sum.ParsedFiles)
			case sum.ReusedFiles > 0:
				fmt.Fprintf(out, "reused %d unchanged files of snapshot %s (copied, not parsed; %d not read: same path, size and time; pack not patched: %s); parsed %d\n", sum.ReusedFiles, sum.ReusedFrom, sum.UnreadFiles, sum.NoPatch, sum.ParsedFiles)
			}
			if sum.Restarted != "" {
				fmt.Fprintf(out, "started over: an interrupted import of this snapshot was discarded (%s)\n", sum.Restarted)
			}
			fmt.Fprintf(out, "imported %s: %d buildings, %d surfaces, %.1f %% valid, %s, in %s\n",
				m.Key(), m.LoD2.BuildingCount, m.LoD2.SurfaceCount, *m.LoD2.ValidationPassPct, m.CRS, time.Since(start).Round(time.Millisecond))
			printIDs(out, "failed geometric validation (kept, flagged)", invalidLabels(sum))
			printIDs(out, "had no usable surface (left out)", sum.Skipped)
			printBadFiles(out, sum.BadFiles)
			if sum.Duplicates > 0 {
				fmt.Fprintf(out, "%d repeated gml:ids left out (the first occurrence was kept)\n", sum.Duplicates)
			}
			if report != "" {
				if err := writeReport(report, sum); err != nil {
					return err
				}
				fmt.Fprintf(out, "full list written to %s\n", report)
			}
			fmt.Fprintf(out, "next: svc build tileset --data %s --bl %s (3D Tiles), then let a running server pick it up: "+
				"kill -HUP <pid> or POST /v1/admin/datasets\n", o.DataDir, o.BL)
			return nil
		},
	}
	commonFlags(c, &o)
	c.Flags().BoolVar(&o.Force, "force", false, "import even when the files' CRS, building ids or position say they belong to another BL")
	c.Flags().BoolVar(&o.Checksum, "checksum", false, "hash every file to find those unchanged from the previous snapshot, instead of trusting equal path, size and modification time (like rsync -c)")
	runFlags(c, &o, &report, &logEvery)
	addEnvHelp(c)
	return c
}

// runFlags adds the flags every resumable import (lod2, dgm, vegetation)
// shares, with the same names, defaults and help texts: --workers,
// --resume, --strict, --report and --progress-interval.
func runFlags(c *cobra.Command, o *importer.Common, report *string, logEvery *time.Duration) {
	f := c.Flags()
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "input files handled at once (the pack is the same byte for byte for any number)")
	f.BoolVar(&o.Resume, "resume", false, "continue the interrupted import of the same --bl, --snapshot and paths from its journal instead of starting over")
	f.BoolVar(&o.Strict, "strict", false, "stop at the first bad file instead of skipping it")
	f.StringVar(report, "report", "", "write what the import left out or flagged (bad files; LoD2 also invalid and skipped buildings) to this file, with why (TSV)")
	f.DurationVar(logEvery, "progress-interval", defaultLogEvery, progressIntervalUsage)
}

// progressIntervalUsage is the help of --progress-interval, the same for
// every import.
const progressIntervalUsage = "time between progress lines when stderr is not a terminal"

// newProgress returns a progress display on w when w is a terminal, else
// nil: piped and logged output stays free of bar redraws.
func newProgress(w io.Writer) *mpb.Progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond))
}

// sweepBefore removes what killed imports and builds left in the data
// directory (their .tmp-* directories, see pack.Sweep) and says so, before
// an import or build starts. Imports running at the same time keep theirs.
func sweepBefore(c *cobra.Command, args []string) error {
	data, err := c.Flags().GetString("data")
	if err != nil || data == "" {
		return nil
	}
	reportSweep(c.ErrOrStderr(), data)
	return nil
}

// reportSweep sweeps data and prints one line per removed directory, and
// a hint when interrupted imports' work directories have not been written
// for abandonedAfter (they are never removed unasked: they may hold hours
// of work for --resume).
func reportSweep(w io.Writer, data string) {
	gone, err := pack.Sweep(data)
	for _, l := range gone {
		fmt.Fprintf(w, "removed %s: an interrupted import or build (%.1f MB)\n", l.Dir, float64(l.Bytes)/1e6)
	}
	if err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
	list, _ := pack.ListInterrupted(data)
	n, size := 0, int64(0)
	for _, in := range list {
		if !in.Running && time.Since(in.LastWrite) >= abandonedAfter {
			n, size = n+1, size+in.Bytes
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "note: %d interrupted imports untouched for %s keep %.1f MB (svc verify lists them; svc import prune removes them)\n",
			n, age(abandonedAfter), float64(size)/1e6)
	}
}

// abandonedAfter is the default age from which an interrupted import's
// work directory counts as abandoned.
const abandonedAfter = 7 * 24 * time.Hour

func newImportPrune() *cobra.Command {
	var data string
	var olderThan time.Duration
	c := &cobra.Command{
		Use:   "prune --data DIR [--older-than 168h]",
		Short: "Remove the work directories of interrupted imports not written for --older-than",
		Long: `prune removes the work directories (<product>/<bl>/.resume-<snapshot>/) that interrupted imports
(lod2, dgm, vegetation) keep for --resume, when no import is running in them and nothing in them
was written for --older-than (default 7 days; 0 removes every one not in use). Their work is lost:
a later import of that snapshot starts over. Published snapshots are never touched. 'svc verify'
lists these directories with their size and age. (The .tmp-* directories of dead imports and
builds need no command: every import and build removes them when it starts.)`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			gone, err := pack.RemoveInterrupted(data, olderThan, time.Now())
			var n int64
			for _, l := range gone {
				n += l.Bytes
				fmt.Fprintf(c.OutOrStdout(), "removed %s (%.1f MB)\n", l.Dir, float64(l.Bytes)/1e6)
			}
			fmt.Fprintf(c.OutOrStdout(), "%d interrupted imports removed, %.1f MB freed\n", len(gone), float64(n)/1e6)
			return err
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory")
	c.Flags().DurationVar(&olderThan, "older-than", abandonedAfter, "remove only work directories not written for this long (0: all not in use)")
	addEnvHelp(c)
	return c
}

// printIDs prints how many buildings ids has and the first few of them.
func printIDs(w io.Writer, what string, ids []string) {
	if len(ids) == 0 {
		return
	}
	const show = 5
	more := ""
	if len(ids) > show {
		more = fmt.Sprintf(", ... (%d more; --report FILE lists all)", len(ids)-show)
	}
	fmt.Fprintf(w, "%d buildings %s: %s%s\n", len(ids), what, strings.Join(ids[:min(show, len(ids))], ", "), more)
}

// printBadFiles lists the files an import left out, with why.
func printBadFiles(w io.Writer, bad []importer.BadFile) {
	if len(bad) == 0 {
		return
	}
	const show = 5
	fmt.Fprintf(w, "%d files skipped as bad (nothing of them imported; --strict stops at the first):\n", len(bad))
	for _, f := range bad[:min(show, len(bad))] {
		fmt.Fprintf(w, "  %s: %s\n", f.Name, oneLine(f.Reason))
	}
	if len(bad) > show {
		fmt.Fprintf(w, "  ... (%d more; --report FILE lists all)\n", len(bad)-show)
	}
}

// oneLine keeps a reason on one line of the report.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
}

// invalidLabels returns the invalid buildings' ids with their failed
// checks, e.g. "DENW43AL00002dmd (degenerate)".
func invalidLabels(s importer.LoD2Summary) []string {
	out := make([]string, len(s.Invalid))
	for i, id := range s.Invalid {
		out[i] = id
		if i < len(s.InvalidDetail) {
			var iss citygml.Issue
			for _, d := range s.InvalidDetail[i].Defects {
				iss |= d.Issues
			}
			out[i] += " (" + iss.String() + ")"
		}
	}
	return out
}

// writeReport writes every invalid and skipped building, tab-separated
// after a header line: gml:id, status, source (file:line of the building)
// and why, one line per failed polygon (which surface, which check, the
// plane distance for non-planar ones, and the coordinate to look at in
// the file's CRS); then every skipped file with status bad-file, no
// gml:id, the file as source and the error as reason.
func writeReport(path string, s importer.LoD2Summary) error {
	var b strings.Builder
	b.WriteString("# gml_id\tstatus\tsource\treason\n")
	for i, id := range s.Invalid {
		if i >= len(s.InvalidDetail) {
			b.WriteString(id + "\tinvalid\t\t\n")
			continue
		}
		d := s.InvalidDetail[i]
		for _, x := range d.Defects {
			fmt.Fprintf(&b, "%s\tinvalid\t%s\t%s\n", id, d.Source, x)
		}
		if d.Failed > len(d.Defects) {
			fmt.Fprintf(&b, "%s\tinvalid\t%s\t%d more failed polygons\n", id, d.Source, d.Failed-len(d.Defects))
		}
	}
	for i, id := range s.Skipped {
		src := ""
		if i < len(s.SkippedAt) {
			src = s.SkippedAt[i]
		}
		fmt.Fprintf(&b, "%s\tskipped\t%s\tno wall, roof or ground polygon to keep (left out)\n", id, src)
	}
	for _, f := range s.BadFiles {
		fmt.Fprintf(&b, "\tbad-file\t%s\t%s\n", f.Name, oneLine(f.Reason))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}
