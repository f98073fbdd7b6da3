package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

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
imported before checksums existed are checked by size only.`,
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
			if bad > 0 {
				return fmt.Errorf("%d of %d packs damaged: re-import them (the import keeps the previous snapshot until it finishes)", bad, checked)
			}
			fmt.Fprintf(out, "%d packs verified\n", checked)
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory")
	addEnvHelp(c)
	return c
}
