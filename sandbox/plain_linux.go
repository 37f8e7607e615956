package sandbox

import (
	"syscall"
	"unsafe"
)

// plainProcAttr puts the child in a process group of its own and has the
// kernel kill it if the judge's thread that started it dies.
func plainProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func prlimit(pid, resource int, soft, hard uint64) error {
	lim := [2]uint64{soft, hard}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(resource),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
