//go:build unix

package supportpkg

import "syscall"

func setUmask(m int) int { return syscall.Umask(m) }
