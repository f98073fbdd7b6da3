package cmd

import "github.com/spf13/cobra"

func newDemo() *cobra.Command {
	return &cobra.Command{Use: "demo", Short: "Write a deterministic demo data pack"}
}

func newImport() *cobra.Command {
	return &cobra.Command{Use: "import", Short: "Import source data into packs"}
}
