package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

func newVerify() *cobra.Command {
	var data string
	c := &cobra.Command{
		Use:   "verify --data DIR",
		Short: "Check every pack file against its manifest (size and SHA-256); exit 1 naming each damaged file",
		Long: `verify reads every file of every pack in the data directory and compares it with the size and
SHA-256 its manifest recorded at import. It prints one line per pack, and for a damaged pack one line
per damaged file, and exits with status 1 when anything is damaged (for monitoring and backups). Packs
imported before checksums existed are checked by size only.

It then lists the work directories of interrupted imports (<product>/<bl>/.resume-<snapshot>/)
with their size and when they were last written; 'svc import ... --resume' continues one, 'svc
import prune' removes those no import has touched for a while. They are not damage.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			out := c.OutOrStdout()
			bad, checked := 0, 0
			for _, f := range pack.List(data) {
				if f.Err != nil && f.Manifest.ImportFinishedAt == nil {
					fmt.Fprintf(out, "SKIP    %s: %v\n", f.Key, f.Err)
					continue
				}
				checked++
				damage, err := pack.Verify(c.Context(), f.Dir, f.Manifest)
				if err != nil {
					return err
				}
				if len(damage) == 0 && f.Manifest.LoD2 != nil {
					// A pack of an older schema is whole but not served.
					if err := lod2store.CheckSchema(c.Context(), filepath.Join(f.Dir, filepath.FromSlash(f.Manifest.LoD2.File))); err != nil {
						bad++
						fmt.Fprintf(out, "OUTDATED %s: %v\n", f.Key, err)
						continue
					}
				}
				if len(damage) == 0 {
					fmt.Fprintf(out, "ok      %s (%d files)\n", f.Key, len(f.Manifest.Files))
					continue
				}
				bad++
				fmt.Fprintf(out, "DAMAGED %s\n", f.Key)
				for _, d := range damage {
					fmt.Fprintf(out, "        %s/%s: %s\n", f.Dir, d.Path, d.Problem)
				}
			}
			printInterrupted(out, data, time.Now())
			if bad > 0 {
				return fmt.Errorf("%d of %d packs damaged or outdated: re-import them (the import keeps the previous snapshot until it finishes)", bad, checked)
			}
			fmt.Fprintf(out, "%d packs verified\n", checked)
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory")
	addEnvHelp(c)
	return c
}

// printInterrupted lists the interrupted imports' work directories of
// data, one line each, e.g.
//
//	INTERRUPTED terrain/he/2026-07-20: 812.4 MB, last written 9d4h ago (.../.resume-2026-07-20)
func printInterrupted(w io.Writer, data string, now time.Time) {
	list, err := pack.ListInterrupted(data)
	for _, in := range list {
		state := "last written " + age(now.Sub(in.LastWrite)) + " ago"
		if in.Running {
			state = "an import is running in it"
		}
		fmt.Fprintf(w, "INTERRUPTED %s: %.1f MB, %s (%s)\n", in.Key, float64(in.Bytes)/1e6, state, in.Dir)
	}
	if len(list) > 0 {
		fmt.Fprintf(w, "%d interrupted imports: the same import command with --resume continues one; svc import prune --older-than DURATION removes them\n", len(list))
	}
	if err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}

// age formats d in days and hours from a day on (9d4h), else as Go does
// to the second.
func age(d time.Duration) string {
	if d < 24*time.Hour {
		return d.Round(time.Second).String()
	}
	days := int(d / (24 * time.Hour))
	return fmt.Sprintf("%dd%dh", days, int((d-time.Duration(days)*24*time.Hour)/time.Hour))
}
