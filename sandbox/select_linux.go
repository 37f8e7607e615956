//go:build linux

package sandbox

import "os"

// User is the uid and gid a program of this runner runs as (with a uid
// per sandbox, the range's first: none owns a file, so each reads what any
// of them may). A caller that binds host paths into a sandbox uses it to
// check beforehand that the program will be able to read them.
func (r *Linux) User() (uid, gid int) { return r.uid, r.gid }

// MkdirOwnedTemp makes a fresh directory in os.TempDir() named after this
// judge process like the runner's own sandbox dirs, so that if the judge is
// killed before it removes the directory, the next linux runner made on
// this machine (NewLinux) removes it as a dead judge's leftover. The caller
// removes it when done; label (no dashes needed) says what it is for.
func MkdirOwnedTemp(label string) (string, error) {
	return mkdirOwnedTemp(os.TempDir(), label+"-*")
}
