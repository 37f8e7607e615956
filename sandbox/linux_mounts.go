//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/criyle/go-sandbox/pkg/mount"
	"golang.org/x/sys/unix"
)

// defaultSystemPaths are bound read-only into every sandbox when they exist:
// the system directories, the few files of /etc that the dynamic linker and
// Python read, and the harmless device nodes.
var defaultSystemPaths = []string{
	"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/resolv.conf",
	"/etc/ssl", "/etc/ca-certificates",
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
}

// SystemPath reports whether the host path p is under one of the system
// paths every sandbox shows read-only. A program elsewhere (rustup's
// ~/.cargo/bin) cannot run inside unless a Spec binds its folder.
func SystemPath(p string) bool {
	probe := &visibleRoots{readOnly: defaultSystemPaths}
	return probe.covers(filepath.Clean(p))
}

// systemPaths are the read-only paths of a sandbox: those of paths that
// exist here, and the host Python's prefixes (py may be nil) where they
// are not under them already.
func systemPaths(paths []string, py *hostPython) []string {
	var system []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			system = append(system, p)
		}
	}
	if py != nil {
		probe := &visibleRoots{readOnly: system}
		for _, p := range py.prefixes {
			if !probe.covers(p) {
				system = append(system, p)
			}
		}
	}
	return system
}

// visibleRoots are the host paths a program can see inside, in mount order.
type visibleRoots struct {
	readOnly []string
	binds    []Bind
}

// checkBinds checks a Spec's Binds (absolute paths that exist, absolute
// targets) and returns them cleaned.
func checkBinds(binds []Bind) ([]Bind, error) {
	var out []Bind
	for _, b := range binds {
		if !filepath.IsAbs(b.Path) {
			return nil, fmt.Errorf("bind %q: not an absolute path", b.Path)
		}
		if _, err := os.Stat(b.Path); err != nil {
			return nil, fmt.Errorf("bind %q: %w", b.Path, err)
		}
		if b.Target != "" && !filepath.IsAbs(b.Target) {
			return nil, fmt.Errorf("bind %q: target %q is not an absolute path", b.Path, b.Target)
		}
		clean := Bind{Path: filepath.Clean(b.Path), Writable: b.Writable}
		if b.Target != "" {
			clean.Target = filepath.Clean(b.Target)
		}
		out = append(out, clean)
	}
	return out, nil
}

// covers reports whether path p (as seen inside) is visible inside.
func (v *visibleRoots) covers(p string) bool {
	for _, r := range v.readOnly {
		if within(p, r) {
			return true
		}
	}
	for _, b := range v.binds {
		if within(p, b.inside()) {
			return true
		}
	}
	return false
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// resolveExecutable turns argv[0] into the path to execve inside the
// sandbox. A name with a slash is used as given (relative to the working
// dir inside). "python3"/"python" are the host Python (see hostPython). Any
// other bare name is searched in the Spec's PATH (else /usr/local/bin,
// /usr/bin, /bin) among the paths visible inside.
func resolveExecutable(name string, env []string, py *hostPython, roots *visibleRoots) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	if name == "python3" || name == "python" {
		if py == nil {
			return "", fmt.Errorf("%q: no python3 on the host PATH: %w", name, exec.ErrNotFound)
		}
		return py.executable, nil
	}
	pathList := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathList = v
		}
	}
	for _, dir := range filepath.SplitList(pathList) {
		candidate := filepath.Join(dir, name)
		if !filepath.IsAbs(candidate) || !roots.covers(candidate) {
			continue
		}
		if fi, err := os.Stat(candidate); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%q not found in PATH %q inside the sandbox: %w", name, pathList, exec.ErrNotFound)
}

// startPlan is what a namespace runner (linux, rootless) works out from a
// Spec before it starts anything: what the program sees, the path it is
// executed from, the dir it starts in, and the size of its work dir.
type startPlan struct {
	roots      *visibleRoots
	execPath   string
	dir        string
	tmpfsBytes int64
}

// planStart places spec's Files in workDir and makes its plan; system are
// the runner's read-only paths, workDirBytes its work dir's size unless
// the Spec has a memory limit (the tmpfs is memory).
func planStart(spec Spec, workDir string, system []string, py *hostPython, workDirBytes int64) (*startPlan, error) {
	if err := placeFiles(workDir, spec.Files); err != nil {
		return nil, err
	}
	plan := &startPlan{roots: &visibleRoots{readOnly: system}, dir: workDir, tmpfsBytes: workDirBytes}
	var err error
	if plan.roots.binds, err = checkBinds(spec.Binds); err != nil {
		return nil, err
	}
	if plan.execPath, err = resolveExecutable(spec.Args[0], spec.Env, py, plan.roots); err != nil {
		return nil, err
	}
	if spec.Dir != "" {
		if plan.dir = filepath.Clean(spec.Dir); !plan.roots.covers(plan.dir) {
			return nil, fmt.Errorf("dir %q is not visible inside the sandbox (not under a system path or a Bind)", spec.Dir)
		}
	}
	if spec.Limits.Memory > 0 {
		plan.tmpfsBytes = spec.Limits.Memory
	}
	return plan, nil
}

// layout is where one sandbox's directories are on the host.
type layout struct {
	base    string // <tempRoot>/tether-sbx-<tag>: removed by Close
	root    string // mount point of the new root (a tmpfs in the sandbox's own mount namespace): the runner's shared one, else <base>/.root
	workDir string // on the host the staged Files; inside, a private tmpfs at the same path with those files bound read-only
}

// buildMounts lists the mounts made inside the new mount namespace, all
// relative to the new root. The work dir inside is a fresh tmpfs owned by
// the sandbox uid (its size counts against the memory cgroup as well), and
// each staged top-level entry is bound read-only on top of it, so the
// program sees only its own files and everything it writes stays in memory.
func buildMounts(l layout, roots *visibleRoots, tmpfsBytes int64, uid, gid int) ([]mount.SyscallParams, error) {
	b := mount.NewBuilder()
	for _, p := range roots.readOnly {
		b.WithBind(p, relative(p), true)
	}
	for _, bind := range roots.binds {
		b.WithBind(bind.Path, relative(bind.inside()), !bind.Writable)
	}
	b.WithMount(mount.Mount{
		Source: "tmpfs",
		Target: relative(l.workDir),
		FsType: "tmpfs",
		Flags:  unix.MS_NOSUID | unix.MS_NODEV,
		Data:   fmt.Sprintf("size=%d,nr_inodes=16384,mode=0755,uid=%d,gid=%d", tmpfsBytes, uid, gid),
	})
	staged, err := os.ReadDir(l.workDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sandbox: work dir: %w", err)
	}
	for _, e := range staged {
		p := filepath.Join(l.workDir, e.Name())
		b.WithBind(p, relative(p), true)
	}
	params, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("sandbox: mounts: %w", err)
	}
	return params, nil
}

// relative turns a host path into a mount target under the new root, where
// go-sandbox makes the mounts (its working directory there).
func relative(p string) string { return strings.TrimPrefix(filepath.Clean(p), "/") }
