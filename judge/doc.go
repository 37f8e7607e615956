// Package judge runs one submission against a problem: it loads the
// problem folder, starts the trusted evaluator and the untrusted solution
// in sandboxes (package sandbox), relays frames between them (package
// dual), collects the evaluator's output and decides the verdict. The
// protocol itself is specified in spec/dual.md and implemented in dual;
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
//     (PATH, HOME, LANG, PYTHONPATH with the SDK, Options.Env), nothing else
//     of the judge's.
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
// Result.Output is the evaluator's plain-text stdout lines (frames, the
// marker and the payload excluded), then, when stderr is not empty,
// "\n--- STDERR ---\n" and stderr. Each stream keeps its last 1 MiB, cut on
// a UTF-8 character boundary. The solution's stderr is read and discarded;
// its plain-text stdout is dropped by the relay; its log frames are kept in
// Result.Logs within the relay's budgets (64 KiB per call, 1 MiB per run).
//
// # Measures
//
// time_ms is phase 2's wall time; cpu_ms and memory_kb are the solution's
// (CPU summed over restarts, the highest peak RSS) as the sandbox runner
// reports them.
//
// # Concurrency
//
// Run is safe for concurrent use. Each run owns its goroutines (one waiter
// and one stderr reader per process, the relay's own) and waits for all of
// them before returning; a panic in any of them is recovered and the run
// ends as SystemError. Options.Trace and Options.Progress are called from
// the relay's goroutines one at a time and must return quickly.
package judge
