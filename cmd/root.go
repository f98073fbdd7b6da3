// Package cmd holds the svc command line: serve, demo, import, build, keys
// and version. It is the only package that reads flags and environment; it
// builds the components and passes them in.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Version is the build's version, set with -ldflags "-X .../cmd.Version=...".
var Version = "dev"

// Execute runs the command line and returns the process exit code.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot()
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "svc:", errorText(err))
		if errors.Is(err, context.Canceled) {
			return 130
		}
		return 1
	}
	return 0
}

func newRoot() *cobra.Command {
	// The import and build commands sweep leftovers in their own hook; the
	// root's (SVC_* variables) must run before it.
	cobra.EnableTraverseRunHooks = true
	root := &cobra.Command{
		Use:     "svc",
		Version: Version, // enables --version; the template prints versionText
		Short:   "Geodata API server for German open data (LoD2, DGM1, canopy, 3D Tiles)",
		Long: `svc publishes German open geodata per federal state (BL) from a local data directory:
LoD2 building surfaces, DGM1 terrain elevation and profiles, canopy height and 3D Tiles.

Every flag can also be set by an environment variable: SVC_ followed by the flag name in
upper case with dashes as underscores (--base-url -> SVC_BASE_URL). A flag on the command
line wins over the environment.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if err := applyEnv(c); err != nil {
				return err
			}
			return applyConfig(c)
		},
	}
	root.PersistentFlags().String(configFlag, "", "configuration file (TOML): sets flags with lower precedence than the command line and SVC_* (see docs/config.md)")
	root.SetVersionTemplate(versionText() + "\n")
	root.AddCommand(newServe(), newVersion(), newDemo(), newImport(), newKeys(), newBuild(), newState(), newMigrate(), newVerify(), newExport(), newQuery())
	return root
}

// envName is the environment variable that sets flag name.
func envName(name string) string {
	return "SVC_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// applyEnv sets every flag of c not given on the command line from its
// SVC_* environment variable.
func applyEnv(c *cobra.Command) error {
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == "help" {
			return
		}
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok {
			return
		}
		if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
			err = sv.Replace(strings.Split(v, ","))
		} else {
			err = f.Value.Set(v)
		}
		if err != nil {
			err = fmt.Errorf("environment %s: %w", envName(f.Name), err)
		}
	})
	return err
}

// addEnvHelp appends the environment variable to each flag's usage text.
func addEnvHelp(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		f.Usage += " [env " + envName(f.Name) + "]"
	})
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the build and API version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			fmt.Fprintln(c.OutOrStdout(), versionText())
			return nil
		},
	}
}

// versionText is what `svc version` and `svc --version` print: the build's
// version, its module version and commit from the build information, the Go
// version, and the API version it implements.
func versionText() string {
	mod, commit, dirty := "(devel)", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			mod = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	return fmt.Sprintf("svc %s\nmodule github.com/svc-geodata/svc %s, commit %s%s\n%s %s/%s\nAPI %s",
		Version, mod, commit, dirty, runtime.Version(), runtime.GOOS, runtime.GOARCH, apiVersion())
}

// errorText is what a user reads for err: one "svc:" prefix and the
// message, without the package prefixes the error picked up on its way
// ("importer: invalid options: --bl is required" reads "--bl is required").
func errorText(err error) string {
	msg := err.Error()
	for _, p := range []string{"importer: invalid options: ", "importer: ", "tiles3d: ", "pack: "} {
		for strings.HasPrefix(msg, p) {
			msg = strings.TrimPrefix(msg, p)
		}
	}
	return msg
}
