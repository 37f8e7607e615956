package sandbox

import (
	"errors"
	"fmt"
)

// DefaultWarmStarts is how many prepared starts Select's linux runner keeps:
// one judge run starts two sandboxes.
const DefaultWarmStarts = 2

// ErrUnknownKind is returned by Select for a kind other than auto, linux,
// rootless, none.
var ErrUnknownKind = errors.New("unknown sandbox kind")

// Makers make the runners Select chooses from; each fails with an error
// that says what this machine is missing.
type Makers struct {
	Linux, Rootless func() (Runner, error)
}

// Select returns the runner for kind:
//
//   - "linux": the linux runner, or an error (wrapping ErrLinuxUnavailable)
//     that says what this machine is missing;
//   - "rootless": the rootless runner (no root needed), or an error
//     (wrapping ErrRootlessUnavailable);
//   - "none": plain processes, no isolation, with a warning;
//   - "auto" (or ""): linux when the machine can, else rootless with a
//     warning that names what it lacks, else none, with a warning that names
//     what is missing.
//
// The caller must show a warning loudly: untrusted code then runs with less
// isolation or none. The linux runner keeps DefaultWarmStarts start threads
// prepared: close it (io.Closer) after the last run.
func Select(kind string) (r Runner, warning string, err error) {
	return SelectFrom(kind, Makers{
		Linux:    runnerMaker(func() (*Linux, error) { return NewLinux(&LinuxOptions{WarmStarts: DefaultWarmStarts}) }),
		Rootless: runnerMaker(NewRootless),
	})
}

// runnerMaker turns a runner's constructor into a Makers field: a failed
// make gives a nil Runner, not a Runner holding a nil *Linux.
func runnerMaker[R Runner](make func() (R, error)) func() (Runner, error) {
	return func() (Runner, error) {
		r, err := make()
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// SelectWith is Select on a machine whose linux runner is made by newLinux
// and which has no rootless runner, so that a caller can show what happens
// on a machine that cannot sandbox.
func SelectWith(kind string, newLinux func() (Runner, error)) (Runner, string, error) {
	return SelectFrom(kind, Makers{Linux: newLinux, Rootless: func() (Runner, error) {
		return nil, fmt.Errorf("%w: not offered here", ErrRootlessUnavailable)
	}})
}

// SelectFrom is Select with the runners made by m.
func SelectFrom(kind string, m Makers) (Runner, string, error) {
	switch kind {
	case "none":
		return NewPlain(), "WARNING: NO SANDBOX: --sandbox none: untrusted code runs as plain processes with no isolation", nil
	case "linux", "rootless":
		make := m.Linux
		if kind == "rootless" {
			make = m.Rootless
		}
		r, err := make()
		if err != nil {
			return nil, "", err
		}
		return r, "", nil
	case "auto", "":
		r, linuxErr := m.Linux()
		if linuxErr == nil {
			return r, "", nil
		}
		r, rootlessErr := m.Rootless()
		if rootlessErr == nil {
			return r, FallbackWarning(linuxErr, nil), nil
		}
		return NewPlain(), FallbackWarning(linuxErr, rootlessErr), nil
	}
	return nil, "", fmt.Errorf("sandbox: %q: %w (want auto, linux, rootless or none)", kind, ErrUnknownKind)
}

// FallbackWarning is what `--sandbox auto` says when it cannot give the
// linux sandbox: what runs instead, why (linuxErr, and rootlessErr when
// the rootless sandbox failed too: nil when it runs), and the fix. The
// judge, the worker and the doctor show it; the caller shows it loudly.
func FallbackWarning(linuxErr, rootlessErr error) string {
	why := "the linux sandbox is not available here: " + withFix(linuxErr)
	if rootlessErr == nil {
		return "WARNING: ROOTLESS SANDBOX: untrusted code runs in user namespaces without cgroups: memory and CPU time are limited per process, not per run (docs/sandbox.md). Why: " + why
	}
	return "WARNING: NO SANDBOX: untrusted code runs as plain processes with no isolation. Why: " + why + ". The rootless sandbox is not available either: " + withFix(rootlessErr)
}

// withFix is err's text with the fix it names, or the doctor as the fix.
func withFix(err error) string {
	if FixOf(err) != "" {
		return err.Error()
	}
	return err.Error() + "; fix: run `tether doctor`, which names each missing piece and the command that fixes it"
}

// fixedError is an error that names its fix in the user's terms.
type fixedError struct {
	err error
	fix string
}

func (e *fixedError) Error() string { return e.err.Error() + "; fix: " + e.fix }
func (e *fixedError) Unwrap() error { return e.err }

// fixError is err with its fix: what the user does to make it go away.
func fixError(err error, fix string) error { return &fixedError{err, fix} }

// FixOf is the fix an error of this package names, "" when it names none.
func FixOf(err error) string {
	var f *fixedError
	if errors.As(err, &f) {
		return f.fix
	}
	return ""
}
