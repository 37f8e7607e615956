// Package trace writes and reads the trace of one judge run: a header line,
// then one JSON line per thing that happened (every line either side wrote,
// each call and capability opened and answered with the duration the judge
// measured, drops, restarts, side exits, LM requests, the verdict) and an
// end line. The format is versioned (Version) and documented in
// docs/trace.md; Reader reads version 1 and every later version keeps it
// able to.
//
// Writer is a judge.Observer: pass it as judge.Options.Observer. It encodes
// each event into memory while the relay waits (no reflection on the frame
// path) and a goroutine of its own writes to the file, so the relay never
// waits on the disk. The file is bounded: past its cap the writer stops
// recording, keeps counting what it left out, and says so in the end line.
package trace
