//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Sandboxes that run at once must not share a user: what the kernel
// counts or permits per user (processes and pending signals per uid,
// inotify and message queue quotas, files a sandbox made in a writable
// Bind) would otherwise be a channel between them, or a way to starve the
// other. So each sandbox of the linux runner runs as a uid of its own,
// taken from sandboxUIDs for as long as it runs, and unique among the
// running sandboxes of every judge on the machine: a uid is claimed by an
// flock on a file named after it in uidLockDir, which the judge holds until
// the sandbox is closed. A lock ends with its holder, so the uids of a
// killed judge come free by themselves. The group is 65534 (nogroup) for
// all: nothing is counted per group.
//
// No file on the host belongs to these uids (they are far above those of
// real users and of the subordinate ranges of rootless containers), so a
// sandbox reads what "others" may read, as nobody would.
const (
	sandboxUIDBase  = 1_900_000_000
	sandboxUIDCount = 1 << 16
	sandboxGID      = 65534
)

// uidLockDir holds the claim files; root's, and writable by root only.
const uidLockDir = "/run/tether-sandbox-uids"

// uidLease is one claimed uid; release frees it.
type uidLease struct {
	uid  int
	lock *os.File
}

func (l *uidLease) release() {
	if l != nil && l.lock != nil {
		l.lock.Close() // ends the flock
		l.lock = nil
	}
}

// checkUIDLockDir makes uidLockDir if missing and checks it is root's and
// writable by no one else (else another user could hold claims).
func checkUIDLockDir() error {
	if err := os.Mkdir(uidLockDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("sandbox uids: %w", err)
	}
	fi, err := os.Lstat(uidLockDir)
	if err != nil {
		return fmt.Errorf("sandbox uids: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ok || st.Uid != 0 {
		return fmt.Errorf("sandbox uids: %s must be a directory of root's that no one else can write to (remove it and let tether make it)", uidLockDir)
	}
	return nil
}

// claimUID takes the first free uid of the range: a claim tries as many
// as run at once, and uidLockDir holds no more files than that.
func claimUID() (*uidLease, error) {
	for i := range sandboxUIDCount {
		uid := sandboxUIDBase + i
		f, err := os.OpenFile(filepath.Join(uidLockDir, strconv.Itoa(uid)), os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("sandbox uids: %w", err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return &uidLease{uid: uid, lock: f}, nil
		}
		f.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("sandbox uids: lock uid %d: %w", uid, err)
		}
	}
	return nil, fmt.Errorf("sandbox uids: all %d are in use", sandboxUIDCount)
}
