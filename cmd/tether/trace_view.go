package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/trace"
	"github.com/tether-dev/tether/trace/view"
)

// traceViewOptions are tether trace view's flags.
type traceViewOptions struct {
	Output string // the page to write; "": FILE with .html
}

func newTraceViewCmd() *cobra.Command {
	o := &traceViewOptions{}
	cmd := &cobra.Command{
		Use:   "view FILE",
		Short: "Write a run's trace as one self-contained HTML page",
		Long: `view turns a trace (tether judge --trace FILE) into one HTML page that needs
nothing else: a timeline with a lane for each side and one for the LM (zoom
with the wheel, pan by dragging), a table of calls to sort, filter and
search, each call's arguments and answer, and per-function statistics. The
page makes no network request, so it can be attached to a ticket and opened
offline. Without -o it is written beside FILE, as FILE.html.`,
		Args: exactArgs(1, "trace view takes one FILE (a trace written by tether judge --trace FILE)", ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := o.Output
			if out == "" {
				out = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".html"
			}
			if err := writeTraceHTML(args[0], out); err != nil {
				return fmt.Errorf("trace view: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "the page to write (default: FILE with .html)")
	return cmd
}

// writeTraceHTML reads the trace at tracePath and writes its page to
// htmlPath, through a temporary file so a reader never sees half a page.
func writeTraceHTML(tracePath, htmlPath string) error {
	in, err := os.Open(tracePath)
	if err != nil {
		return err
	}
	defer in.Close()
	h, evs, err := trace.ReadAll(in)
	if err != nil {
		return fmt.Errorf("%s: %w", tracePath, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(htmlPath), ".tether-view-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := view.Render(tmp, view.FromTrace(h, evs)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), htmlPath)
}
