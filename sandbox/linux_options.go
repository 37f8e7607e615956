package sandbox

import "errors"

// The linux runner's options and its "not here" error are the same on every
// OS, so that code naming them builds everywhere; linux.go is the runner,
// linux_other.go its stand-in off Linux.

// LinuxOptions configure the linux runner. A nil or zero value means the defaults.
type LinuxOptions struct {
	// UID and GID every program runs as. 0 means a uid of its own for each
	// sandbox while it runs (see linux_uids.go), and gid 65534 (nogroup).
	// Root is refused.
	UID, GID int
	// SystemPaths are bound read-only at the same path in every sandbox;
	// nil means defaultSystemPaths. Paths that do not exist are skipped.
	SystemPaths []string
	// TempRoot holds the per-sandbox directories; "" means os.TempDir().
	TempRoot string
	// WorkDirBytes caps the private work dir (a tmpfs) when the Spec sets
	// no memory limit; 0 means 256 MiB. With a memory limit the cap is that limit.
	WorkDirBytes int64
	// WarmStarts is how many start threads the runner keeps prepared, each
	// already inside a fresh cgroup (see linux_warm.go); 0 means none, and
	// every start prepares its own. The runner starts preparing them when
	// it is made, and again as sandboxes close; it keeps that many empty
	// cgroups and parked threads between runs: Close it.
	WarmStarts int
}

// ErrLinuxUnavailable wraps every reason the linux runner cannot run here.
var ErrLinuxUnavailable = errors.New("linux sandbox not available")
