//go:build unix

package trace

import "syscall"

// processCPU is this process's user and system CPU time in microseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return (syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)) / 1000
}
