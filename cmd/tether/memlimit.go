package main

import (
	"os"
	"runtime/debug"
)

// serverMemoryLimit is the Go heap's soft limit in the servers: their
// readers hold at most wire.DefaultPoolBytes of unfinished messages, and
// the limit makes the collector reclaim grown-and-dropped buffers before
// the heap doubles, so a flood of big messages leaves the process well
// under 512 MiB. GOMEMLIMIT, when set, wins.
const serverMemoryLimit = 384 << 20

func limitServerMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serverMemoryLimit)
	}
}
