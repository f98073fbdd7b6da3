package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/pack"
)

func newDemo() *cobra.Command {
	var data string
	var seed uint64
	var force bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Generate a deterministic demo data pack and import it",
		Long: `demo writes synthetic source files, as the state portals deliver them, for five federal states
(he, nrw: EPSG:25832 inland; be, bb: EPSG:25833; sh: coastal) under <data>/sources, and imports
them through the same code as 'svc import'. The same seed always gives the same data.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if !force {
				for _, p := range pack.Products() {
					if _, err := os.Stat(filepath.Join(data, string(p))); err == nil {
						return fmt.Errorf("%s already holds packs; use --force to import the demo over them", data)
					}
				}
			}
			start := time.Now()
			err := demo.Run(c.Context(), demo.Options{DataDir: data, Seed: seed, Log: func(f string, a ...any) {
				fmt.Fprintf(c.OutOrStdout(), f+"\n", a...)
			}})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "demo pack written to %s in %s\n", data, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory to write into")
	c.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	c.Flags().BoolVar(&force, "force", false, "import even when the data directory already holds packs")
	addEnvHelp(c)
	return c
}
