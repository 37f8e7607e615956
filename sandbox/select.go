package sandbox

import (
	"errors"
	"fmt"
)

// DefaultWarmStarts is how many prepared starts Select's linux runner keeps:
// one judge run starts two sandboxes.
const DefaultWarmStarts = 2

// ErrUnknownKind is returned by Select for a kind other than auto, linux, none.
var ErrUnknownKind = errors.New("unknown sandbox kind")

// Select returns the runner for kind:
//
//   - "linux": the linux runner, or an error (wrapping ErrLinuxUnavailable)
//     that says what this machine is missing;
//   - "none": plain processes, no isolation, with a warning;
//   - "auto" (or ""): linux when the machine can, else none, with a warning
//     that names what is missing.
//
// The caller must show a warning loudly: untrusted code then runs without
// isolation. The linux runner keeps DefaultWarmStarts start threads
// prepared: close it (io.Closer) after the last run.
func Select(kind string) (r Runner, warning string, err error) {
	return SelectWith(kind, func() (Runner, error) {
		l, err := NewLinux(&LinuxOptions{WarmStarts: DefaultWarmStarts})
		if err != nil {
			return nil, err
		}
		return l, nil
	})
}

// SelectWith is Select with the linux runner made by newLinux, so that a
// caller can show what happens on a machine that cannot sandbox.
func SelectWith(kind string, newLinux func() (Runner, error)) (Runner, string, error) {
	switch kind {
	case "none":
		return NewPlain(), "WARNING: NO SANDBOX: --sandbox none: untrusted code runs as plain processes with no isolation", nil
	case "linux":
		r, err := newLinux()
		if err != nil {
			return nil, "", err
		}
		return r, "", nil
	case "auto", "":
		r, err := newLinux()
		if err != nil {
			return NewPlain(), fmt.Sprintf("WARNING: NO SANDBOX: untrusted code runs as plain processes with no isolation (%v)", err), nil
		}
		return r, "", nil
	}
	return nil, "", fmt.Errorf("sandbox: %q: %w (want auto, linux or none)", kind, ErrUnknownKind)
}
