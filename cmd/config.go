package cmd

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A configuration file (--config FILE or SVC_CONFIG) sets flags like the
// command line does, with the lowest precedence: command line, then SVC_*
// environment, then the file, then the defaults. Top-level keys apply to
// every command that has the flag; a table named after a command applies to
// it alone ([serve], [import.lod2], [keys.create]):
//
//	data = "/var/lib/svc"
//
//	[serve]
//	addr = "127.0.0.1:8080"
//	base-url = "https://geo.example.org"
//	trusted-proxy = ["127.0.0.1/32"]
//	keyless-limit = 1000
//
// A key no command knows, or a table key its command has no flag for, is an
// error naming it: a typo must not be ignored.
const configFlag = "config"

// applyConfig sets the flags of c that neither the command line nor the
// environment set from the configuration file, if one is given.
func applyConfig(c *cobra.Command) error {
	path, _ := c.Flags().GetString(configFlag)
	if path == "" {
		path = os.Getenv(envName(configFlag))
	}
	if path == "" {
		return nil
	}
	var doc map[string]any
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	known := allFlags(c.Root())
	section := strings.Fields(strings.TrimPrefix(c.CommandPath(), c.Root().Name()))
	values := map[string]any{}
	// Top level first, then the command's table and its parents' tables,
	// most specific last.
	var walk func(tbl map[string]any, path []string) error
	walk = func(tbl map[string]any, path []string) error {
		keys := make([]string, 0, len(tbl))
		for k := range tbl {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := tbl[k]
			if sub, ok := v.(map[string]any); ok {
				if cmdAt(c.Root(), append(path, k)) == nil {
					return fmt.Errorf("--config %s: [%s] is not a command", path2(path, k), strings.Join(append(path, k), "."))
				}
				if err := walk(sub, append(append([]string(nil), path...), k)); err != nil {
					return err
				}
				continue
			}
			if len(path) == 0 {
				if !known[k] {
					return fmt.Errorf("--config %s: unknown key %q (no command has a flag --%s)", pathOf(c), k, k)
				}
			} else if cmd := cmdAt(c.Root(), path); cmd.Flags().Lookup(k) == nil {
				return fmt.Errorf("--config %s: unknown key %q in [%s] (svc %s has no flag --%s)", pathOf(c), k,
					strings.Join(path, "."), strings.Join(path, " "), k)
			}
			if isPrefix(path, section) {
				values[k] = v
			}
		}
		return nil
	}
	if err := walk(doc, nil); err != nil {
		return err
	}
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		v, ok := values[f.Name]
		if err != nil || !ok || f.Changed || f.Name == configFlag {
			return
		}
		if _, inEnv := os.LookupEnv(envName(f.Name)); inEnv {
			return
		}
		if list, isList := v.([]any); isList {
			strs := make([]string, len(list))
			for i, x := range list {
				strs[i] = fmt.Sprint(x)
			}
			if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
				err = sv.Replace(strs)
			} else {
				err = f.Value.Set(strings.Join(strs, ","))
			}
		} else {
			err = f.Value.Set(fmt.Sprint(v))
		}
		if err != nil {
			err = fmt.Errorf("--config %s: %s: %w", pathOf(c), f.Name, err)
		}
	})
	return err
}

func pathOf(c *cobra.Command) string {
	p, _ := c.Flags().GetString(configFlag)
	if p == "" {
		p = os.Getenv(envName(configFlag))
	}
	return p
}

func path2(path []string, k string) string {
	return strings.Join(append(append([]string(nil), path...), k), ".")
}

// isPrefix reports whether the table path applies to the command section.
func isPrefix(path, section []string) bool {
	if len(path) > len(section) {
		return false
	}
	for i := range path {
		if path[i] != section[i] {
			return false
		}
	}
	return true
}

// cmdAt finds the command at names below root, or nil.
func cmdAt(root *cobra.Command, names []string) *cobra.Command {
	c := root
	for _, n := range names {
		var next *cobra.Command
		for _, s := range c.Commands() {
			if s.Name() == n {
				next = s
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}

// allFlags is the set of flag names of every command.
func allFlags(root *cobra.Command) map[string]bool {
	out := map[string]bool{}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { out[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { out[f.Name] = true })
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(root)
	return out
}
