// Package judge runs one submission against a problem: it loads the
// problem folder, starts the trusted evaluator and the untrusted solution
// in sandboxes (package sandbox), relays frames between them (package
// dual), collects the evaluator's output and decides the verdict. The
// protocol itself is specified in docs/protocol/judge.md and implemented in dual;
// this package owns everything around it.
//
// # A run
//
//  1. LoadProblem reads problem.json (unknown fields ignored and kept in
//     Problem.Raw), applies the defaults and checks the evaluator command's
//     first word against the allow-list; LoadSubmission reads the solution.
//  2. Run starts the evaluator in the problem folder and the solution in a
//     private work dir holding the submission as main.py (the Python host by
//     default, or runtime_config.solution.command with
//     TETHER_SOLUTION_ENTRY=main.py). Both get the same small environment
//     (PATH, LANG, PYTHONPATH with the SDK, Options.Env, and HOME and
//     TMPDIR naming the side's private writable work dir), nothing else of
//     the judge's.
//  3. Phase 1: the evaluator has Options.StartTimeout (30 s) for its first
//     stdout line. Phase 2: runtime_config.evaluator.time_limit_ms counts from
//     that line. The relay ends at the result payload, when the evaluator is
//     gone, on a fatal relay condition, or when a phase timer or the caller's
//     context cancels it.
//  4. Both sides are stopped in order (stdin closed, Options.StopGrace, kill
//     of the whole sandbox), reaped, their stderr drained and pipes closed;
//     then Decide maps the Outcome to the verdict (its doc states the
//     precedence) and the Result is assembled.
//
// # Output
//
// Result.Output is the evaluator's plain-text stdout lines, each as printed
// (frames, the marker and the payload excluded; Options.NeuroOJ keeps the
// last two, as Neuro OJ's judge does), then, when stderr is not empty,
// "\n--- STDERR ---\n" and stderr. Each stream keeps its last 1 MiB, cut on
// a UTF-8 character boundary. The solution's stderr is read and discarded;
// its plain-text stdout is dropped by the relay; its log frames are kept in
// Result.Logs within the relay's budgets (64 KiB per call, 1 MiB per run).
//
// # Measures
//
// time_ms is phase 2's wall time; cpu_ms and memory_kb are the solution's
// (CPU summed over restarts, the highest peak) as the sandbox runner
// reports them: with the linux runner, from the cgroup (cpuacct usage and
// the memory peak, memory.max_usage_in_bytes on cgroup v1).
//
// # Limits
//
// Each side's sandbox gets memory_limit_mb, pids_limit (default 64),
// file_size_limit_mb (16) and open_files_limit (256) from its part of
// runtime_config. The solution also gets cpu_time_limit_ms, a CPU cap for
// the whole run shared by its restarts (default time_limit_ms + 1 s, see
// DefaultSolutionCPUAllowanceMs); the evaluator's time is its wall limit.
// The solution over memory is MemoryLimitExceeded, over its CPU cap
// TimeLimitExceeded; the evaluator over memory is SystemError (the problem
// is broken). Decide states the precedence. With a runner that runs as
// another user, the problem folder must be readable by that user
// (CheckProblemAccess); the run fails with a message saying so otherwise.
//
// # Cleanup
//
// Every sandbox is killed and its cgroup and temp dir removed on every
// return of Run, also when its context is cancelled (tether judge cancels
// it on SIGINT/SIGTERM). The run's Python SDK dir is named after the judge
// process like the sandboxes' dirs, so after a kill -9 the next linux
// runner made on the machine removes it with them.
//
// # LM handler
//
// With Options.LM set (package judge/lmstart builds it from an lm/lmconfig
// configuration: the judge's --lm-config, else the problem's
// runtime_config.lm), each run gets its own LM handler, so a configured
// budget is per run. It listens on a Unix socket in a fresh directory
// (mode 0711, socket 0777, so the sandbox's unprivileged uid can connect);
// only the evaluator gets that directory bound into its sandbox and
// TETHER_LM_ADDR=unix:PATH in its environment, so it needs no network. The
// solution reaches models only through the evaluator's capabilities. After
// both sides have stopped, the handler's usage becomes Result.LMUsage
// (lm_usage) and the handler is closed and its directory removed, on every
// exit path. A problem declaring runtime_config.lm on a judge without
// Options.LM ends as SystemError (ErrNoLMHandler).
//
// # Concurrency
//
// Run is safe for concurrent use. Each run owns its goroutines (one waiter
// and one stderr reader per process, the relay's own) and waits for all of
// them before returning; a panic in any of them is recovered and the run
// ends as SystemError. Options.Observer is told each Event one at a time,
// from the run's goroutines, and must return quickly.
package judge
