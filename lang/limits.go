package lang

import (
	"fmt"
	"time"
)

// CompileLimits bound one compile step. Zero fields take the defaults
// (DefaultCompileLimits); in a problem's runtime_config.solution.compile or
// a language's compile_limits, only the fields given override.
type CompileLimits struct {
	TimeLimitMs       int64 `json:"time_limit_ms,omitempty"`       // wall time
	CPUTimeLimitMs    int64 `json:"cpu_time_limit_ms,omitempty"`   // CPU of every compiler process
	MemoryLimitMB     int64 `json:"memory_limit_mb,omitempty"`     // the compile sandbox's memory
	Processes         int64 `json:"pids_limit,omitempty"`          // processes and threads
	OutputLimitKB     int64 `json:"output_limit_kb,omitempty"`     // compiler messages kept (the tail)
	ExecutableLimitMB int64 `json:"executable_limit_mb,omitempty"` // every file the compiler writes, and their sum
	SourceLimitKB     int64 `json:"source_limit_kb,omitempty"`     // the submitted source
}

// DefaultCompileLimits are the limits of a compile step that neither the
// language nor the problem sets (docs/languages.md).
var DefaultCompileLimits = CompileLimits{
	TimeLimitMs:       30000,
	CPUTimeLimitMs:    20000,
	MemoryLimitMB:     1024,
	Processes:         128,
	OutputLimitKB:     64,
	ExecutableLimitMB: 64,
	SourceLimitKB:     1024,
}

// Over returns l with every field that o sets replaced by o's.
func (l CompileLimits) Over(o CompileLimits) CompileLimits {
	pick := func(dst *int64, v int64) {
		if v != 0 {
			*dst = v
		}
	}
	pick(&l.TimeLimitMs, o.TimeLimitMs)
	pick(&l.CPUTimeLimitMs, o.CPUTimeLimitMs)
	pick(&l.MemoryLimitMB, o.MemoryLimitMB)
	pick(&l.Processes, o.Processes)
	pick(&l.OutputLimitKB, o.OutputLimitKB)
	pick(&l.ExecutableLimitMB, o.ExecutableLimitMB)
	pick(&l.SourceLimitKB, o.SourceLimitKB)
	return l
}

// Effective are the limits of compiling in l for a problem that sets
// problem: the defaults, then the language's, then the problem's.
func (l *Language) Effective(problem CompileLimits) CompileLimits {
	return DefaultCompileLimits.Over(l.Limits).Over(problem)
}

func (l CompileLimits) check(where string) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"time_limit_ms", l.TimeLimitMs}, {"cpu_time_limit_ms", l.CPUTimeLimitMs},
		{"memory_limit_mb", l.MemoryLimitMB}, {"pids_limit", l.Processes},
		{"output_limit_kb", l.OutputLimitKB}, {"executable_limit_mb", l.ExecutableLimitMB},
		{"source_limit_kb", l.SourceLimitKB},
	} {
		if f.v < 0 {
			return fmt.Errorf("%s.%s must not be negative, got %d", where, f.name, f.v)
		}
	}
	return nil
}

// Check is check for a problem's runtime_config.solution.compile.
func (l CompileLimits) Check(where string) error { return l.check(where) }

func (l CompileLimits) wall() time.Duration { return time.Duration(l.TimeLimitMs) * time.Millisecond }
