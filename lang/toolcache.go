package lang

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tether-dev/tether/sandbox"
)

// A compiler's own cache (Language.ToolCache, Go's GOCACHE) is shared by
// every submission's compile, but never written by one: Go's cache maps
// an action ID (a hash of a package's inputs, which anyone can compute) to
// an output file and checks only that file's size on a hit, so a compile
// that could write the shared cache could plant a package (fmt, the host)
// that every later submission links. The shared dir is therefore filled
// by a trusted warm step, compiling Language.Warm (our program, no
// submission in it), published by an atomic rename, and bound read-only
// into each submission's compile; Go leaves out the entries it cannot
// write (the submission's own package and link), which the build cache
// keeps per source anyway.

// toolCachePrefix names a warmed tool cache inside the build cache's dir.
// The build cache's eviction passes over it (it has no manifest): there is
// one per toolchain, host version and Warm, tens of MB each.
const toolCachePrefix = "toolcache-"

// toolCacheMount is the compiler's own cache dir as one compile sees it.
type toolCacheMount struct {
	dir      string // a warmed shared dir, read-only; "": a private, empty one
	writable bool   // the warm step's own dir
}

// bind is tc as the compile sandbox's bind, a private dir made in the
// build dir parent when tc names none.
func (tc toolCacheMount) bind(parent string) (sandbox.Bind, error) {
	if tc.dir != "" {
		return sandbox.Bind{Path: tc.dir, Writable: tc.writable}, nil
	}
	dir := filepath.Join(parent, "toolcache")
	if err := os.Mkdir(dir, 0o777); err != nil {
		return sandbox.Bind{}, fmt.Errorf("lang: the compiler's cache dir: %w", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // whatever the umask
		return sandbox.Bind{}, fmt.Errorf("lang: the compiler's cache dir: %w", err)
	}
	return sandbox.Bind{Path: dir, Writable: true}, nil
}

// keyLocks holds a lock (a channel of one) per cache key of a trusted
// step (a warm step, a host built alone): the builds of one process wait
// for one such step, or for their ctx (Builders are made per run).
// Several processes may run the same step at once; the first rename wins.
var keyLocks sync.Map

// lockKey takes key's lock, or fails when ctx ends first.
func lockKey(ctx context.Context, key string) (unlock func(), err error) {
	lock, _ := keyLocks.LoadOrStore(key, make(chan struct{}, 1))
	select {
	case lock.(chan struct{}) <- struct{}{}:
		return func() { <-lock.(chan struct{}) }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("lang: compile cancelled: %w", ctx.Err())
	}
}

// warmToolCache is the dir of l's shared tool cache, warmed on a miss by
// compiling l.Warm with the language's own compile limits (the warm step
// is the judge's cost, not the submission's).
func (b *Builder) warmToolCache(ctx context.Context, l *Language, support []supportFile, cpus []int) (string, error) {
	key, err := b.keyOf(ctx, l, "tether-tool-cache-1", l.Compile, []byte(l.Warm))
	if err != nil {
		return "", err
	}
	return b.trustedDir(ctx, key, toolCachePrefix, fmt.Sprintf("the %s compiler's cache", l.ID), &b.prebuilds, func(tmp string) error {
		files := append(slices.Clip(support), supportFile{name: l.Source, data: []byte(l.Warm)})
		bd, err := b.compile(ctx, l, files, compileArgs(l, compileUnits(l, support)), l.Effective(CompileLimits{}), cpus,
			toolCacheMount{dir: tmp, writable: true})
		if err != nil {
			return err
		}
		bd.Close()
		return nil
	})
}

// trustedDir is the dir prefix+key in the build cache, made on a miss by
// fill, a trusted step (no submission in it) that writes into a fresh dir
// the sandbox's user may write. What fill wrote is sealed, then published
// by an atomic rename, so a compile sees the whole dir or none; the
// compiles that use it see it read-only. One fill per key at a time in
// this process (the others wait for it); a fill that failed is not tried
// again by this Builder. what names the dir in errors; fills counts the
// fills (for tests).
func (b *Builder) trustedDir(ctx context.Context, key, prefix, what string, fills *atomic.Int64, fill func(tmp string) error) (string, error) {
	dir := filepath.Join(b.Cache.Dir(), prefix+key)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	unlock, err := lockKey(ctx, key)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if _, failed := b.prebuildFailed.Load(key); failed {
		return "", fmt.Errorf("lang: making %s failed before; not tried again", what)
	}
	fills.Add(1)
	tmp, err := os.MkdirTemp(b.Cache.Dir(), ".tmp-"+prefix)
	if err != nil {
		return "", fmt.Errorf("lang: making %s: %w", what, err)
	}
	defer os.RemoveAll(tmp) // after a rename, nothing is left there
	if err := os.Chmod(tmp, 0o777); err != nil {
		return "", fmt.Errorf("lang: making %s: %w", what, err)
	}
	if err := fill(tmp); err != nil {
		if ctx.Err() == nil {
			b.prebuildFailed.Store(key, true)
		}
		return "", fmt.Errorf("lang: making %s: %w", what, err)
	}
	if err := seal(tmp); err != nil {
		return "", fmt.Errorf("lang: making %s: %w", what, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return dir, nil // another process published it first
		}
		return "", fmt.Errorf("lang: publishing %s: %w", what, err)
	}
	return dir, nil
}

// seal makes what the warm step wrote (as the sandbox's user) the judge's
// and read-only to everyone else: dirs 0755, files 0644.
func seal(dir string) error {
	uid, gid := os.Getuid(), os.Getgid()
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return os.Remove(path) // Go's cache holds none; nothing to follow
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		if err := os.Lchown(path, uid, gid); err != nil && !os.IsPermission(err) {
			return err
		}
		return os.Chmod(path, mode)
	})
}
