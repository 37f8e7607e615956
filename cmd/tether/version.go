package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/internal/version"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print tether's version and the protocols it speaks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "tether %s (%s, %s/%s)\n", version.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			for _, name := range []string{"dual", "lm", "jsonrpc"} {
				fmt.Fprintf(out, "  %-8s %s\n", name, version.Protocols[name])
			}
			return nil
		},
	})
}
