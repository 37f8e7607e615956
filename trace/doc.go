// Package trace writes and reads the trace of one judge run: a header line,
// then one JSON line per thing that happened (the compile step, every line
// either side wrote, each call and capability opened and answered with the
// duration the judge measured, drops, restarts, each process's start and
// exit, LM requests, the verdict) and an
// end line. The format is versioned (Version) and documented in
// docs/trace.md; Reader reads version 1 and every later version keeps it
// able to.
//
// Writer is a judge.SelectiveObserver: pass it as judge.Options.Observer.
// While the relay waits it only copies each event's facts and bytes; a
// goroutine of its own encodes the lines (no reflection on the frame path)
// and writes them, so the relay neither encodes nor waits on the disk. The file is bounded: past its cap the writer stops
// recording, keeps counting what it left out, and says so in the end line.
package trace
