package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/state"
	"github.com/svc-geodata/svc/state/postgres"
	"github.com/svc-geodata/svc/state/sqlite"
)

// stateStore is what the commands need of a state backend: the Store and
// the JSON export/import both backends implement.
type stateStore interface {
	state.Store
	Export(context.Context) (state.Dump, error)
	Import(context.Context, state.Dump) error
}

// openState opens the state backend: PostgreSQL when url is set (a
// postgres:// URL or libpq key=value string, shared by replicas), otherwise
// the SQLite side database <data>/svc.db.
func openState(ctx context.Context, data, url string) (stateStore, error) {
	if url != "" {
		if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") && !strings.Contains(url, "=") {
			return nil, fmt.Errorf("--state must be a postgres:// URL (or empty for <data>/%s), not %q", sideDB, url)
		}
		return postgres.Open(ctx, url)
	}
	return sqlite.Open(ctx, filepath.Join(data, sideDB))
}

const stateFlagHelp = "PostgreSQL URL of the shared state backend (keys, counters, usage) for several replicas; empty: SQLite <data>/svc.db"

func newState() *cobra.Command {
	c := &cobra.Command{
		Use:   "state",
		Short: "Move, export and import the state (keys, counters, usage) between backends",
		Long: `state moves a deployment's keys, counters and usage between the embedded SQLite side database
(<data>/svc.db, the default) and a PostgreSQL database shared by several replicas (--state).
Stop the servers that write the source first: a move copies one consistent snapshot.`,
	}
	c.AddCommand(newStateMigrateFromSQLite(), newStateExport(), newStateImport())
	for _, sub := range c.Commands() {
		addEnvHelp(sub)
	}
	return c
}

func newStateMigrateFromSQLite() *cobra.Command {
	var data, url string
	c := &cobra.Command{
		Use:   "migrate-from-sqlite --data DIR --state postgres://...",
		Short: "Copy <data>/svc.db into a new PostgreSQL state database",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if url == "" {
				return errors.New("--state is required: the PostgreSQL URL to move to")
			}
			ctx := c.Context()
			path := filepath.Join(data, sideDB)
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("no side database to move: %w", err)
			}
			src, err := sqlite.Open(ctx, path)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := postgres.Open(ctx, url)
			if err != nil {
				return err
			}
			defer dst.Close()
			d, err := src.Export(ctx)
			if err != nil {
				return err
			}
			if err := dst.Import(ctx, d); err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "moved %s: %s\nnext: start every replica with --state (or SVC_STATE) set to the same URL; %s stays as it was (a backup)\n",
				path, dumpSummary(d), sideDB)
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory holding svc.db")
	c.Flags().StringVar(&url, "state", "", "PostgreSQL URL to move to (its database must be new)")
	return c
}

func newStateExport() *cobra.Command {
	var data, url, out string
	c := &cobra.Command{
		Use:   "export [--state URL | --data DIR] [--out FILE]",
		Short: "Write the whole state as JSON (a backup, or a move back to SQLite)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			st, err := openState(ctx, data, url)
			if err != nil {
				return err
			}
			defer st.Close()
			d, err := st.Export(ctx)
			if err != nil {
				return err
			}
			var w io.Writer = c.OutOrStdout()
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			if err := enc.Encode(d); err != nil {
				return fmt.Errorf("write export: %w", err)
			}
			fmt.Fprintln(c.ErrOrStderr(), "exported", dumpSummary(d))
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory holding svc.db (when --state is empty)")
	c.Flags().StringVar(&url, "state", "", stateFlagHelp)
	c.Flags().StringVar(&out, "out", "-", "file to write; - for standard output")
	return c
}

func newStateImport() *cobra.Command {
	var data, url string
	c := &cobra.Command{
		Use:   "import [--state URL | --data DIR] FILE",
		Short: "Load a JSON export into a new (empty) state backend",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			d, err := state.ReadDump(f)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			st, err := openState(ctx, data, url)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Import(ctx, d); err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), "imported", dumpSummary(d))
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory holding svc.db (when --state is empty)")
	c.Flags().StringVar(&url, "state", "", stateFlagHelp)
	return c
}

func newMigrate() *cobra.Command {
	var data, url string
	c := &cobra.Command{
		Use:   "migrate [--state URL | --data DIR]",
		Short: "Apply pending schema migrations of the state backend and exit",
		Long: `migrate brings the state database to this build's schema; serve does the same on start, so
this is for deployments that migrate before rolling out replicas.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			st, err := openState(c.Context(), data, url)
			if err != nil {
				return err
			}
			defer st.Close()
			fmt.Fprintln(c.OutOrStdout(), "state schema is current")
			return nil
		},
	}
	c.Flags().StringVar(&data, "data", "./data", "data directory holding svc.db (when --state is empty)")
	c.Flags().StringVar(&url, "state", "", stateFlagHelp)
	addEnvHelp(c)
	return c
}

func dumpSummary(d state.Dump) string {
	return fmt.Sprintf("%d keys, %d trial mints, %d keyless counters, %d daily usage rows",
		len(d.Tables["api_keys"]), len(d.Tables["trial_mints"]), len(d.Tables["keyless_client_day"]), len(d.Tables["usage_day"]))
}
