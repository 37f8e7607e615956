//go:build linux

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Every cgroup and temp dir a linux or rootless runner makes is named
// "<owner tag>-<rest>" (temp dirs with the prefix tempPrefix), and each
// directory that holds such entries holds one more per judge process, its
// owner lock "<owner tag>-owner": a directory the judge keeps flock'ed
// from before it makes its first entry there until it exits, when the
// kernel lets go of the lock. A later judge tells what a dead one left
// behind from what a live one uses by trying that lock, not by the pid:
// a judge in another PID namespace (another container sharing /tmp or the
// cgroup tree) has a pid that means nothing here, and a lock holds across
// namespaces because both judges see the same directory.
const tempPrefix = "tether-sbx-"

// ownerLockSuffix ends the name of an owner lock.
const ownerLockSuffix = "-owner"

// ownerTag names this judge process: pid, start time (clock ticks since
// boot, field 22 of /proc/PID/stat) and a random part, so that two judges
// in different PID namespaces that share a pid and a start tick (two
// containers' first processes) still differ. The pid and start time are
// for people reading the names, and for the entries of an older tether
// that made no owner lock (see ownerAlive).
var ownerTag = func() string {
	pid := os.Getpid()
	return fmt.Sprintf("%d-%d-%s", pid, processStartTime(pid), randomHex(8))
}()

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails on Linux (crypto/rand)
	return hex.EncodeToString(b)
}

// processStartTime is 0 when the process does not exist.
func processStartTime(pid int) uint64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields count from its ")".
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(data[i+1:]))
	const startTimeField = 22 - 3 // fields[0] is field 3
	if len(fields) <= startTimeField {
		return 0
	}
	v, _ := strconv.ParseUint(fields[startTimeField], 10, 64)
	return v
}

// ownerLocks are the owner locks this process holds, by directory, and
// how many linux runners it has open: the locks stay open while the
// process lives (the kernel releases them when it exits), or until the
// last linux runner closes and their folders hold nothing else of it.
var ownerLocks struct {
	sync.Mutex
	held    map[string]*os.File
	runners int
}

// holdOwnerLock makes and takes this judge's owner lock in dir, named
// prefix+ownerTag+"-owner" like the judge's other entries there (temp dirs
// carry tempPrefix, cgroups nothing), once per process: call it before
// making the first entry named after ownerTag in dir.
func holdOwnerLock(dir, prefix string) error {
	ownerLocks.Lock()
	defer ownerLocks.Unlock()
	_, err := holdOwnerLockLocked(dir, prefix)
	return err
}

// holdOwnerLockLocked is holdOwnerLock with ownerLocks locked; taken says
// this call took the lock.
func holdOwnerLockLocked(dir, prefix string) (taken bool, err error) {
	if ownerLocks.held[dir] != nil {
		return false, nil
	}
	f, err := takeOwnerLock(filepath.Join(dir, prefix+ownerTag+ownerLockSuffix))
	if err != nil {
		return false, fmt.Errorf("sandbox: owner lock in %s: %w", dir, err)
	}
	if ownerLocks.held == nil {
		ownerLocks.held = map[string]*os.File{}
	}
	ownerLocks.held[dir] = f
	return true, nil
}

// mkdirOwnedTemp makes a fresh dir in the temp dir root named
// tempPrefix+ownerTag+"-"+pattern (os.MkdirTemp's pattern) under this
// judge's owner lock there. The first time, it also removes what this
// user's dead judges left in root: a judge that is not root, or runs no
// linux runner, has no one else to do it, and would otherwise leave its
// owner lock behind at every exit. That clean-up is best effort (no part
// of this judge's work), so its errors are dropped.
func mkdirOwnedTemp(root, pattern string) (string, error) {
	ownerLocks.Lock()
	taken, err := holdOwnerLockLocked(root, tempPrefix)
	var dir string
	if err == nil {
		dir, err = os.MkdirTemp(root, tempPrefix+ownerTag+"-"+pattern)
	}
	ownerLocks.Unlock()
	if taken {
		removeStaleTemp(root, os.Geteuid())
	}
	return dir, err
}

// linuxRunnerOpened counts a linux runner in; linuxRunnerClosed counts it
// out, and after the last one lets go of each owner lock whose folder
// holds nothing else of this process, so that a judge that exits cleanly
// leaves nothing behind. An entry made after that takes its lock anew.
func linuxRunnerOpened() {
	ownerLocks.Lock()
	ownerLocks.runners++
	ownerLocks.Unlock()
}

func linuxRunnerClosed() {
	ownerLocks.Lock()
	defer ownerLocks.Unlock()
	if ownerLocks.runners--; ownerLocks.runners > 0 {
		return
	}
	for dir, f := range ownerLocks.held {
		if holdsOwnEntries(dir, filepath.Base(f.Name())) {
			continue
		}
		if err := syscall.Rmdir(f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			continue // kept, and held: a later clean-up finds it free once this process is gone
		}
		f.Close()
		delete(ownerLocks.held, dir)
	}
}

// holdsOwnEntries reports whether dir holds an entry named after ownerTag
// besides the owner lock named lock (or cannot be read).
func holdsOwnEntries(dir, lock string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.Name() != lock && strings.Contains(e.Name(), ownerTag+"-") {
			return true
		}
	}
	return false
}

// takeOwnerLock makes the lock directory at path and flocks it. Another
// judge's clean-up may find it between the mkdir and the flock, take it
// for a dead judge's and remove it; so the lock counts only once the path
// is seen to still name the locked directory, and otherwise is made again.
func takeOwnerLock(path string) (*os.File, error) {
	var lastErr error
	for attempt := 0; attempt < 100; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Millisecond) // the clean-up that holds it is removing it
		}
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		f, err := openLockDir(path)
		if err != nil {
			lastErr = err
			continue
		}
		if uid := fileUID(f); uid != os.Geteuid() {
			f.Close()
			return nil, fmt.Errorf("%s: owned by uid %d, made by someone else: remove it", path, uid)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			lastErr = err
			continue
		}
		if sameFile(f, path) {
			return f, nil
		}
		f.Close()
		lastErr = errors.New("removed while being locked")
	}
	return nil, fmt.Errorf("%s: %w", path, lastErr)
}

// sameFile reports whether path still names the open directory f.
func sameFile(f *os.File, path string) bool {
	opened, err1 := f.Stat()
	named, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(opened, named)
}

// lockState is what probing an owner lock found.
type lockState int

const (
	lockMissing lockState = iota // no owner lock: an older tether's entry, or one left mid-clean-up
	lockHeld                     // its judge runs (here or in another PID namespace)
	lockFree                     // its judge is gone
)

// openLockDir opens the directory at path, without following a link or
// blocking on a FIFO someone put there.
func openLockDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// fileUID is the owner of f, -1 if unknown.
func fileUID(f *os.File) int {
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return uidOf(fi)
}

func uidOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// probeOwnerLock tries the owner lock at path and lets go of it at once.
// A lock not owned by uid (-1: any) is none: in a temp dir anyone may make
// one, and only the entry's own owner's counts.
func probeOwnerLock(path string, uid int) lockState {
	f, err := openLockDir(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
		return lockMissing // none, or no directory of ours (a link or FIFO someone put there)
	}
	if err != nil {
		return lockHeld // cannot tell: not ours to touch
	}
	defer f.Close()
	if uid != -1 && fileUID(f) != uid {
		return lockMissing
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return lockHeld
	}
	return lockFree
}

// entryTag splits an entry name (tempPrefix already cut) into the tag of
// the judge that made it: its first three dash-separated fields, of which
// the first two are a pid and a start time. ok is false for names that do
// not follow the scheme: those are not ours.
func entryTag(name string) (tag string, pid int, start uint64, ok bool) {
	parts := strings.SplitN(name, "-", 4)
	if len(parts) < 3 {
		return "", 0, 0, false
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseUint(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return strings.Join(parts[:3], "-"), pid, start, true
}

// ownerAlive reports whether the judge that made the entry named name
// (tempPrefix already cut) still runs, lockDir being where its owner lock
// is: lockDir/<lockPrefix><tag>-owner. Names that do not follow the scheme
// are not ours: treated as alive. Without an owner lock (an entry of an
// older tether, or of a judge between making its cgroup parent and its
// lock there) the old rule decides: its pid runs here with its start time.
func ownerAlive(lockDir, lockPrefix, name string) bool {
	tag, pid, start, ok := entryTag(name)
	if !ok {
		return true
	}
	uid := -1
	if fi, err := os.Lstat(filepath.Join(lockDir, lockPrefix+name)); err == nil {
		uid = uidOf(fi)
	}
	switch probeOwnerLock(filepath.Join(lockDir, lockPrefix+tag+ownerLockSuffix), uid) {
	case lockHeld:
		return true
	case lockFree:
		return false
	}
	return processStartTime(pid) == start
}
