package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/netip"

	"github.com/spf13/pflag"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
)

// The flags every command that judges shares (judge, serve, worker,
// problem check), each bound to a field of the command's options.

// judgingOptions are the flags tether judge and tether serve share: the
// sandbox, what an evaluator may run and reach, the runs' LM handlers and
// how submissions are built.
type judgingOptions struct {
	Sandbox string // --sandbox: auto, linux, rootless or none
	// AllowCommands are the first words an evaluator command may start with.
	AllowCommands []string
	// NetworkAllow is --evaluator-network-allow, as given.
	NetworkAllow []string
	LM           lmHandlerOptions
	Build        buildOptions
}

func (o *judgingOptions) addFlags(f *pflag.FlagSet) {
	addSandboxFlag(f, &o.Sandbox)
	addAllowCommandFlag(f, &o.AllowCommands, "")
	addNetworkAllowFlag(f, &o.NetworkAllow, "")
	o.LM.addFlags(f)
	o.Build.addFlags(f)
}

// sandboxUsage is the help of every command's --sandbox: each kind that
// sandbox.Select accepts.
const sandboxUsage = "isolation of both sides: auto (linux when this machine can, else rootless, else none, with a warning; see tether doctor), linux, rootless (user namespaces, no cgroups: memory and CPU limited per process), or none"

// addSandboxFlag adds --sandbox, the isolation of both sides.
func addSandboxFlag(f *pflag.FlagSet, kind *string) {
	f.StringVar(kind, "sandbox", "auto", sandboxUsage)
}

// addAllowCommandFlag adds --allow-command, the allow-list of an
// evaluator command's first word (docs/protocol/judge.md: configurable);
// env names the variable that can set it, if any.
func addAllowCommandFlag(f *pflag.FlagSet, list *[]string, env string) {
	usage := "first words an evaluator command may start with (runtime_config.evaluator.command); replaces the list"
	if env != "" {
		usage += " (env " + env + ", comma-separated)"
	}
	f.StringSliceVar(list, "allow-command", judge.DefaultAllowedCommands, usage)
}

// addNetworkAllowFlag adds --evaluator-network-allow, the addresses an
// evaluator with the network may reach in the ranges its sandbox refuses
// by default.
func addNetworkAllowFlag(f *pflag.FlagSet, list *[]string, env string) {
	usage := "IPv4 addresses and CIDRs in private or local ranges that an evaluator with the network may reach all the same (docs/sandbox.md); the host's own addresses stay unreachable"
	if env != "" {
		usage += " (env " + env + ")"
	}
	f.StringSliceVar(list, "evaluator-network-allow", nil, usage)
}

// networkAllow parses the --evaluator-network-allow list; env names the
// variable that can set it, if any.
func networkAllow(list []string, env string) ([]netip.Prefix, error) {
	name := "--evaluator-network-allow"
	if env != "" {
		name += " (env " + env + ")"
	}
	return sandbox.ParseNetworkAllow(name, list)
}

// judgeRunner picks the runner of --sandbox kind. Running with less
// isolation than the linux sandbox is announced loudly (announceSandbox)
// in log, or on stderr when log is nil; the result says which sandbox ran.
func (m machine) judgeRunner(stderr io.Writer, kind string, log *slog.Logger) (sandbox.Runner, error) {
	runner, warning, err := m.selectSandbox(kind)
	if err != nil {
		return nil, fmt.Errorf("--sandbox %s: %w", kind, err)
	}
	if warning != "" {
		announceSandbox(stderr, log, warning)
	}
	return runner, nil
}

// announceSandbox shows a sandbox warning (sandbox.FallbackWarning, or
// --sandbox none's) loudly: a log record at level WARN when the command
// logs, so that log readers and alerts see it, else a line of its own
// between blank lines on w. The judge, worker, serve and doctor show it
// here.
func announceSandbox(w io.Writer, log *slog.Logger, warning string) {
	if log != nil {
		log.Warn("!!! " + warning)
		return
	}
	fmt.Fprintf(w, "\n!!! %s\n\n", warning)
}

// judgeRunnerAndLM is a judging command's runner (--sandbox kind) and LM
// handler (see lmHandlerOptions.starter); the caller closes the runner.
func (m machine) judgeRunnerAndLM(stderr io.Writer, kind string, lm *lmHandlerOptions, problem *judge.Problem) (sandbox.Runner, judge.LMStarter, error) {
	lmStarter, err := lm.starter(problem)
	if err != nil {
		return nil, nil, err
	}
	runner, err := m.judgeRunner(stderr, kind, nil)
	if err != nil {
		return nil, nil, err
	}
	return runner, lmStarter, nil
}
