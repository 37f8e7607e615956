package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/trace"
)

// newTraceCmd is the parent of the tools that read a run's trace (tether
// judge --trace FILE; docs/trace.md).
func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Read a run's trace (written by tether judge --trace FILE)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newTraceStatsCmd(), newTraceViewCmd())
	return cmd
}

// traceStatsOptions are tether trace stats' flags.
type traceStatsOptions struct {
	JSON bool
}

func newTraceStatsCmd() *cobra.Command {
	o := &traceStatsOptions{}
	cmd := &cobra.Command{
		Use:   "stats FILE",
		Short: "Per-function call statistics, the slowest calls and where the time went",
		Long: `stats reads a trace and prints, per function (and capability), how many
calls there were, their p50/p90/p99/max latency as the judge measured it
and how many did not end in a result; then the slowest calls, and how the
run's time divides between the solution, the evaluator and the judge.`,
		Args: exactArgs(1, "trace stats takes one FILE (a trace written by tether judge --trace FILE)", ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("trace stats: %w", err)
			}
			defer f.Close()
			h, evs, err := trace.ReadAll(f)
			if err != nil {
				return fmt.Errorf("trace stats: %s: %w", args[0], err)
			}
			return report(cmd.OutOrStdout(), o.JSON, trace.Compute(h, evs), printTraceStats)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the statistics as one JSON object")
	return cmd
}

func us(n int64) string { return (time.Duration(n) * time.Microsecond).String() }

func printTraceStats(w io.Writer, st *trace.Stats) {
	fmt.Fprintf(w, "problem:  %s\nrun:      %s", st.Problem, us(st.WallUs))
	if st.SubmissionID != "" {
		fmt.Fprintf(w, ", submission %s", st.SubmissionID)
	}
	if st.Verdict != "" {
		fmt.Fprintf(w, ", %s", st.Verdict)
	}
	fmt.Fprintln(w)
	if st.Capped {
		fmt.Fprintln(w, "note:     the trace reached its cap (--trace-max); these numbers cover its head only")
	}
	if c := st.Compile; c != nil {
		how := fmt.Sprintf("compiler %d ms, %d KiB", c.TimeMs, c.MemoryKB)
		if c.Cached {
			how = "cached"
		}
		fmt.Fprintf(w, "compile:  %s, %s (%s, before the run's clock): %s", c.Language, us(c.Us), how, c.Outcome)
		if c.Reason != "" {
			fmt.Fprintf(w, ", %s", c.Reason)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\nfunction\tanswered by\tcalls\terrors\tp50\tp90\tp99\tmax\t")
	for _, f := range st.Functions {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", f.Fn, f.Side, f.Count, f.Errors,
			us(f.P50Us), us(f.P90Us), us(f.P99Us), us(f.MaxUs))
	}
	tw.Flush()
	if len(st.Slowest) > 0 {
		fmt.Fprintln(w, "\nslowest calls:")
		for _, c := range st.Slowest {
			fmt.Fprintf(w, "  %-10s %s on the %s, id %s, at %s: %s\n", us(c.Us), c.Fn, c.Side, c.ID, us(c.StartUs), c.Outcome)
		}
	}
	t := st.Time
	fmt.Fprintf(w, "\ntime:     start-up %s, solution %s, evaluator %s; judge CPU %s\n",
		us(t.StartupUs), us(t.SolutionUs), us(t.EvaluatorUs), us(t.JudgeCPUUs))
	if st.Restarts > 0 {
		fmt.Fprintf(w, "restarts: %d\n", st.Restarts)
	}
	if len(st.Drops) > 0 {
		parts := make([]string, 0, len(st.Drops))
		for reason, n := range st.Drops {
			parts = append(parts, fmt.Sprintf("%s %d", reason, n))
		}
		slices.Sort(parts)
		fmt.Fprintf(w, "dropped:  %s\n", strings.Join(parts, ", "))
	}
	if lm := st.LM; lm != nil {
		fmt.Fprintf(w, "lm:       %d requests (%d failed), tokens in %d out %d, p50 %s, max %s\n",
			lm.Requests, lm.Errors, lm.InputTokens, lm.OutputTokens, us(lm.P50Us), us(lm.MaxUs))
	}
}

// openTrace creates the trace file at path for a run with header h, capped
// at maxSize (a size such as "64MiB"). close writes the end line and closes
// the file.
func openTrace(path, maxSize string, h trace.Header) (*trace.Writer, func() error, error) {
	max, err := parseSize(maxSize)
	if err != nil {
		return nil, nil, fmt.Errorf("--trace-max %q: %w", maxSize, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--trace: %w", err)
	}
	w := trace.NewWriter(f, h, max)
	return w, func() error {
		err := w.Close()
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--trace: %w", cerr)
		}
		return err
	}, nil
}

// parseSize reads a byte count with an optional unit: B, KiB, MiB, GiB (or
// K, M, G, the same powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a positive size such as 64MiB, 500KiB or 1048576")
	}
	return n * mult, nil
}
