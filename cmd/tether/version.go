package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/internal/version"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tether's version, commit, Go version and the protocols it speaks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), versionText())
			return nil
		},
	}
}

// versionText is what tether version prints: the release, the commit it
// was built from and the Go version (from the binary's build info), then
// each protocol's version.
func versionText() string {
	bi, _ := debug.ReadBuildInfo()
	var b strings.Builder
	fmt.Fprintf(&b, "tether %s\n", describeBuild(bi, version.Version))
	for _, name := range []string{"dual", "lm", "jsonrpc"} {
		fmt.Fprintf(&b, "  %-8s %s\n", name, version.Protocols[name])
	}
	return b.String()
}

// describeBuild is "VERSION (commit C, GO, OS/ARCH)". The release is
// the module's version when the binary was installed as module@version
// and the linker set none; the commit is the VCS revision go build
// stamped (cut to 12 digits, "+dirty" for uncommitted changes), or
// "unknown" (go run, tests, a build outside a checkout).
func describeBuild(bi *debug.BuildInfo, release string) string {
	commit, goVersion := "unknown", runtime.Version()
	if bi != nil {
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		if release == "0.1.0-dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			release = bi.Main.Version
		}
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
				if len(commit) > 12 {
					commit = commit[:12]
				}
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && commit != "unknown" {
			commit += "+dirty"
		}
	}
	return fmt.Sprintf("%s (commit %s, %s, %s/%s)", release, commit, goVersion, runtime.GOOS, runtime.GOARCH)
}
