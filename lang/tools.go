package lang

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tether-dev/tether/sandbox"
)

// selfExe makes dir/proc holding only self/exe, a link to the compiler
// (its real path, found by findTool), shown as the compile sandbox's /proc
// (Language.SelfExe).
func selfExe(dir, compiler string) (string, error) {
	if !filepath.IsAbs(compiler) {
		if p, err := exec.LookPath(compiler); err == nil {
			compiler = p
		}
	}
	proc := filepath.Join(dir, "proc")
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		return "", fmt.Errorf("lang: /proc/self/exe for the compiler: %w", err)
	}
	if err := os.Symlink(compiler, filepath.Join(proc, "self", "exe")); err != nil {
		return "", fmt.Errorf("lang: /proc/self/exe for the compiler: %w", err)
	}
	for _, d := range []string{proc, filepath.Join(proc, "self")} {
		os.Chmod(d, 0o755)
	}
	return proc, nil
}

// resolveTool names argv[0] by its real path when it is a command found
// on PATH through symbolic links (Debian's /usr/bin/javac ->
// /etc/alternatives/javac -> /usr/lib/jvm/...): the sandbox shows the
// system dirs, not /etc/alternatives.
func resolveTool(argv []string) []string {
	argv, _ = resolveToolEnv(argv)
	return argv
}

// ToolEnv is what a command resolved by resolveTool needs in its
// environment: LD_ORIGIN_PATH, the dir the dynamic linker takes $ORIGIN
// (in an RPATH such as the JDK's $ORIGIN/../lib) to be for the program
// itself, which it otherwise reads from /proc/self/exe, absent in the
// sandbox. "" when nothing is needed.
func ToolEnv(argv []string) string {
	if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		return ""
	}
	return "LD_ORIGIN_PATH=" + filepath.Dir(argv[0])
}

func resolveToolEnv(argv []string) ([]string, string) {
	if len(argv) == 0 || strings.ContainsRune(argv[0], '/') {
		return argv, ""
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return argv, ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || real == path || !filepath.IsAbs(real) {
		return argv, ""
	}
	out := append([]string{real}, argv[1:]...)
	return out, ToolEnv(out)
}

// HiddenToolError: a toolchain found on PATH only in folders the sandbox
// cannot see, so the compile step cannot run it (the judge's setup, not
// the submission's fault).
type HiddenToolError struct {
	Language, Name string
	Found          []string // where PATH has it
}

func (e *HiddenToolError) Error() string {
	return fmt.Sprintf("%s: %s is on PATH only at %s, which the sandbox cannot see (it shows the system dirs /usr, /bin, ...); "+
		"install the toolchain there (for Rust, Debian's rustc: apt-get install rustc) or add its folder to the %s language's paths in a languages file",
		e.Language, e.Name, strings.Join(e.Found, ", "), e.Language)
}

// findTool is the program the compile sandbox runs for a command's first
// word: a name with a slash as it is; else, by its real path, the first
// match on PATH the sandbox can see (under the system dirs or the
// language's Paths), passing over earlier ones it cannot (rustup's
// ~/.cargo/bin/rustc before Debian's /usr/bin/rustc). A name found
// nowhere is returned as given, for the sandbox to fail on; one found only
// out of sight is a *HiddenToolError.
func (l *Language) findTool(name string) (string, error) {
	if name == "" || strings.ContainsRune(name, '/') {
		return name, nil
	}
	binds := l.Binds()
	visible := func(p string) bool {
		if sandbox.SystemPath(p) {
			return true
		}
		for _, b := range binds {
			if p == b.Path || strings.HasPrefix(p, strings.TrimSuffix(b.Path, "/")+"/") {
				return true
			}
		}
		return false
	}
	var hidden []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		path, err := exec.LookPath(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			continue
		}
		if visible(path) && visible(real) {
			return real, nil
		}
		if !slices.Contains(hidden, path) {
			hidden = append(hidden, path)
		}
	}
	if len(hidden) > 0 {
		return "", &HiddenToolError{Language: l.ID, Name: name, Found: hidden}
	}
	return name, nil
}

// compileCommand is argv with its program chosen by findTool, and what
// that program needs in its environment (ToolEnv).
func (l *Language) compileCommand(argv []string) ([]string, string, error) {
	if len(argv) == 0 {
		return argv, "", nil
	}
	tool, err := l.findTool(argv[0])
	if err != nil {
		return nil, "", err
	}
	if tool == argv[0] {
		return argv, "", nil
	}
	out := append([]string{tool}, argv[1:]...)
	return out, ToolEnv(out), nil
}
