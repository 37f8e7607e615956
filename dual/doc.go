// Package dual relays the judge protocol (docs/protocol/judge.md) between a problem's
// evaluator and a solution host: newline-delimited JSON frames over each
// side's stdin and stdout.
//
// # Layers
//
// Classify and Frame read one line: trimmed (Unicode white space at both
// ends), exactly "---RESULT---" is the Marker, a valid JSON object (UTF-8;
// Python's NaN and ±Infinity allowed, see lineSyntax) with a string "type"
// is Framed, everything else is Text. The scan
// validates the whole line in one pass and picks out only type, id, fn,
// name, stream, data and timeout_ms; args and value are never decoded and a
// forwarded frame is the original trimmed bytes.
//
// The engine (engine.go) is the routing state machine: lines and clock
// readings in, actions out; no goroutines, no clock, no I/O. Relay is the
// plumbing around it.
//
// # Routing rules (the engine)
//
//   - One in-flight table for calls (evaluator waits, solution owes) and
//     capabilities (solution waits, evaluator owes), keyed by direction and
//     id; one min-heap of deadlines with removal by index.
//   - Deadline = arrival + the frame's positive integer timeout_ms (an
//     integer literal, saturating at a century), else for a capability its
//     latest cap_reg timeout (a missing or non-positive one deletes it),
//     else Config.CallTimeout. On expiry the id is removed and the waiting
//     side gets {"type":"error","id":ID,"code":"CallTimeout","message":"call timeout"}.
//   - A result/error is forwarded only if its id is in flight and owed by
//     the side sending it; a missing/non-string/empty id → DropNoID; owed by
//     the other side → DropWrongSide; else → DropUnknownID (late, duplicate,
//     forged). Every drop is counted in Stats.Dropped and gives a Warn action.
//   - A call/capability needs a non-empty string id (else DropNoID), at most
//     MaxIDLen bytes and MaxInFlight per direction (else Rejected). A
//     duplicate id in flight → Rejected "duplicate call id" (or "duplicate
//     capability id") to the sender, not forwarded.
//   - Frames over MaxFrame: a call/capability → Rejected "frame size N >
//     1048576" to its sender; a response in flight → the entry is removed
//     and the waiting side gets that Rejected error; anything else → DropOversize.
//   - Lines over the wire cap (LineTooLong): if the first bytes show a
//     string type and id, handled as an oversize frame of that type and id;
//     otherwise dropped (DropLineTooLong), also from the evaluator: a text
//     line over 4 MiB is not output.
//   - Evaluator: call, cap_reg (never forwarded), result, error; log →
//     DropEvaluatorLog; anything else (shutdown included) → DropType. Text →
//     Output, as printed; after the marker the next non-empty Text line is
//     the Result (once per run; frames in between are routed, empty lines
//     skipped; the marker and the payload are not Output but ResultLine,
//     the signed marker told without its nonce).
//   - Solution: before its ready every frame → DropBeforeReady; ready is
//     not forwarded; capability, result, error, log and shutdown are routed;
//     anything else → DropType; Text → DropSolutionText.
//   - Solution log frames are forwarded and kept (Log action) while they
//     fit: the whole frame (its bytes, and one frame) counts against every
//     call in flight to the solution (MaxLogPerCall, MaxLogFramesPerCall
//     each), and always against the run (MaxLogPerRun, MaxLogFramesPerRun).
//     A frame that does not fit whole is dropped whole (DropLogBudget,
//     LogDropped*). The stream is "stdout", "stderr" or "other" (any other
//     name), and the evaluator gets the frame rebuilt from type, stream and
//     data: nothing else the solution put in it reaches the evaluator.
//   - A solution's shutdown is forwarded as {"type":"shutdown"}, once per
//     solution process; a repeat drops (DropRepeated).
//   - Calls that arrive while no solution is ready are held (up to
//     MaxQueuedBytes, beyond → SystemError) with their deadline running, and
//     forwarded when ready arrives.
//   - Restart policy: a CallTimeout of a call sent to the live solution gives
//     RestartSolution, every other call sent to it fails with SystemError
//     "solution restarted after timeout", its capabilities in flight are
//     forgotten (the evaluator's late answers drop as unknown ids) and its
//     frames drop (DropOldSolution) until the caller reports SolutionStarted
//     and the new host sends ready. Continue policy: nothing restarts.
//   - Gone(Solution) while live fails every call it owes at once with
//     SystemError "solution is gone: REASON"; under Restart the next call
//     queues and gives RestartSolution, under Continue every later call fails
//     at once. Gone before ready, or no ready within ReadyTimeout of
//     SolutionStarted → Fatal(ErrSolutionNotReady). Gone(Evaluator) drops the
//     capabilities it owes and every later evaluator line.
//
// # Relay
//
// Relay runs the engine between two processes' pipes (relay.go: the path
// of a line). One goroutine, the poller (poll.go), reads both stdouts
// (4 MiB line cap), routes each whole line under the relay's lock and
// collects the forwarded frames, one buffer per destination; before it
// reads again each buffer goes to its conn (conn.go), which writes it with
// one write, the rest by a goroutine of the conn when the pipe is full.
// Lines to one side keep their order. Frames the engine writes itself
// (timeouts, rejections) never wait for room, so a stuck peer never stalls
// a deadline; a write failing or blocked for WriteStall (3 s) makes that
// side gone, except an evaluator held up by the solution (it owes the
// solution a capability, or may not yet have read a frame the solution
// sent it unasked: action.Unasked): that stall is the solution's doing,
// and the evaluator's time limit, the caller's, bounds the wait. The Run
// goroutine owns the timer for the earliest deadline and the restarts.
// Events are told once the frames of the lines they report are sent
// (event.go), so an observer never holds up a frame.
// Memory is bounded by three times the line cap per side (its buffer, the
// frames of one read, the copies its queued events keep) plus
// QueueBytes per side and one batch in each conn's write.
package dual
