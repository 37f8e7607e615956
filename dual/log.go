package dual

// log keeps and forwards a solution log frame within the budgets. The
// whole frame counts, bytes and one frame, against the run's budget and
// against the budget of every call in flight to the solution (which one
// printed it cannot be known), so no call sees more than its budget of
// logs while it runs, however many overlap it, and neither a long stream
// name, an extra member nor a flood of empty frames is free. The evaluator
// gets the frame rebuilt from what it needs (stream and data), never the
// solution's other members.
func (e *engine) log(line []byte, out []action) []action {
	f := &e.f
	if f.Data == nil {
		return e.drop(out, Solution, DropMalformed)
	}
	size := len(line)
	overCall := false
	for _, i := range e.t.heap {
		en := &e.t.slots[i]
		if en.dir == toSolution && (en.logBytes+size > e.cfg.MaxLogPerCall || en.logFrames >= e.cfg.MaxLogFramesPerCall) {
			overCall = true
			break
		}
	}
	if size > e.cfg.MaxFrame || e.runLogBytes+size > e.cfg.MaxLogPerRun || e.runLogFrames >= e.cfg.MaxLogFramesPerRun ||
		overCall || e.evaluatorGone {
		e.stats.LogDroppedFrames++
		e.stats.LogDroppedBytes += int64(size)
		return e.drop(out, Solution, DropLogBudget)
	}
	for _, i := range e.t.heap {
		if en := &e.t.slots[i]; en.dir == toSolution {
			en.logBytes += size
			en.logFrames++
		}
	}
	e.runLogBytes += size
	e.runLogFrames++
	e.stats.LogKeptFrames++
	e.stats.LogKeptBytes += int64(size)
	stream := streamName(f.Stream)
	start := len(e.scratch)
	e.scratch = append(e.scratch, `{"type":"log","stream":"`...)
	e.scratch = append(e.scratch, stream...)
	e.scratch = append(e.scratch, `","data":`...)
	e.scratch = append(e.scratch, f.Data...)
	e.scratch = append(e.scratch, '}')
	return append(out,
		action{Kind: actSend, To: Evaluator, Frame: e.scratch[start:], Unasked: true},
		action{Kind: actLog, From: Solution, Stream: stream, Text: Unquote(f.Data)})
}

// Log streams: what a solution names a stream is one of these, so a name
// costs nothing to keep whatever the solution wrote there.
const (
	streamStdout = "stdout"
	streamStderr = "stderr"
	streamOther  = "other" // any other name, or none
)

func streamName(tok []byte) string {
	if tok != nil {
		switch string(Unquote(tok)) {
		case streamStdout:
			return streamStdout
		case streamStderr:
			return streamStderr
		}
	}
	return streamOther
}
