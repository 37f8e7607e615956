package lang

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/copyfile"
	"github.com/tether-dev/tether/sandbox"
)

// Cache keeps built submissions, content-addressed: an entry's key hashes
// the language entry (compile command, the compiler's resolved path and
// version, the host files), the source bytes and the host library's
// version, so a hit can only stand for the same build. Entries are
// published atomically (written under a temp name, then renamed), so
// several workers may share one cache dir; each holds a manifest of its
// files' checksums, checked on every hit, and a corrupted entry is removed
// and rebuilt. The least recently used entries go once the total size is
// over MaxBytes. The dir is private to the judge's user (0700).
type Cache struct {
	dir      string
	maxBytes int64
	mu       sync.Mutex // one eviction at a time in this process
}

// DefaultCacheBytes caps a cache whose size is not given.
const DefaultCacheBytes = 1 << 30

// manifestName is the manifest's name inside an entry.
const manifestName = "tether-build.json"

// OpenCache opens (making it if needed) the cache in dir, capped at
// maxBytes (0: DefaultCacheBytes).
func OpenCache(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("lang: build cache %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("lang: build cache %s: %w", abs, err)
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return nil, fmt.Errorf("lang: build cache %s: %w", abs, err)
	}
	return &Cache{dir: abs, maxBytes: maxBytes}, nil
}

// DefaultCacheDir is where the build cache lives when none is named: the
// user's cache dir (XDG_CACHE_HOME, ~/.cache), else the temp dir.
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "tether", "build")
	}
	return filepath.Join(os.TempDir(), "tether-build-cache")
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

type manifest struct {
	Files []manifestFile `json:"files"`
	Stats Stats          `json:"stats"` // of the compile that made the entry
}

type manifestFile struct {
	Name   string      `json:"name"`
	Mode   fs.FileMode `json:"mode"`
	Size   int64       `json:"size"`
	SHA256 string      `json:"sha256"`
}

func (c *Cache) entry(key string) string { return filepath.Join(c.dir, key) }

// get is the build of key, its files linked (or copied) into a dir of the
// caller's own, so an eviction cannot pull them from under a run. A
// corrupted entry is removed and reported as a miss.
func (c *Cache) get(key string) (*Build, bool) {
	dir := c.entry(key)
	raw, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, false
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || len(m.Files) == 0 {
		c.discard(dir)
		return nil, false
	}
	runDir, err := sandbox.MkdirOwnedTemp(buildDirLabel)
	if err != nil {
		return nil, false
	}
	bd := &Build{Dir: runDir, Stats: Stats{Cached: true}}
	for _, f := range m.Files {
		if !validEntryName(f.Name) {
			break
		}
		from := filepath.Join(dir, filepath.FromSlash(f.Name))
		to := filepath.Join(runDir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			break
		}
		if err := os.Link(from, to); err != nil {
			if err := copyfile.ToNew(from, to, 0o600); err != nil {
				break
			}
		}
		if sum, size, err := fileSum(to); err != nil || sum != f.SHA256 || size != f.Size {
			break
		}
		bd.Files = append(bd.Files, sandbox.File{Name: f.Name, Source: to, Mode: runMode(f.Mode)})
	}
	if len(bd.Files) != len(m.Files) {
		bd.Close()
		c.discard(dir)
		return nil, false
	}
	now := time.Now()
	os.Chtimes(filepath.Join(dir, manifestName), now, now) // least recently used goes first
	return bd, true
}

// validEntryName refuses a manifest naming a file outside its entry.
func validEntryName(name string) bool {
	return name != "" && name != manifestName && filepath.IsLocal(filepath.FromSlash(name))
}

// discard removes an entry: renamed away first, so no reader sees half of it.
func (c *Cache) discard(dir string) {
	gone := dir + ".gone-" + fmt.Sprint(time.Now().UnixNano())
	if os.Rename(dir, gone) == nil {
		os.RemoveAll(gone)
	}
}

// put publishes bd's files as key's entry, then evicts down to the cap.
func (c *Cache) put(key string, bd *Build) error {
	tmp, err := os.MkdirTemp(c.dir, ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after a rename, nothing is left there
	m := manifest{Stats: bd.Stats}
	for _, f := range bd.Files {
		to := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		if err := copyfile.ToNew(f.Source, to, 0o600); err != nil {
			return err
		}
		sum, size, err := fileSum(to)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, manifestFile{Name: f.Name, Mode: f.Mode, Size: size, SHA256: sum})
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), raw, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.entry(key)); err != nil {
		// Another builder published the same key first: its entry stands.
		if errors.Is(err, fs.ErrExist) || isNotEmpty(err) {
			return nil
		}
		return err
	}
	c.evict()
	return nil
}

func isNotEmpty(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le) && strings.Contains(le.Err.Error(), "not empty")
}

// evict removes the least recently used entries until the cache is under
// its cap.
func (c *Cache) evict() {
	c.mu.Lock()
	defer c.mu.Unlock()
	type entry struct {
		dir  string
		used time.Time
		size int64
	}
	names, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	var entries []entry
	var total int64
	for _, n := range names {
		if !n.IsDir() || strings.HasPrefix(n.Name(), ".") || strings.Contains(n.Name(), ".gone-") {
			continue
		}
		dir := filepath.Join(c.dir, n.Name())
		info, err := os.Stat(filepath.Join(dir, manifestName))
		if err != nil {
			continue
		}
		var size int64
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					size += fi.Size()
				}
			}
			return nil
		})
		entries = append(entries, entry{dir, info.ModTime(), size})
		total += size
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range entries {
		if total <= c.maxBytes {
			return
		}
		c.discard(e.dir)
		total -= e.size
	}
}

func fileSum(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// key is the cache key of building source in l, with extra beside it, by
// any of the commands that may build it (Language.HostBuild's too).
func (b *Builder) key(ctx context.Context, l *Language, source []byte, extra []supportFile) (string, error) {
	commands := l.Compile
	if hb := l.HostBuild; hb != nil {
		commands = slices.Concat(l.Compile, []string{"\x00host:"}, hb.Compile, hb.Outputs, []string{"\x00submission:"}, hb.Submission, hb.Files)
	}
	if len(extra) == 0 {
		return b.keyOf(ctx, l, "tether-build-1", commands, source)
	}
	keyed := fmt.Appendf(nil, "%d:%s", len(source), source)
	for _, f := range extra {
		keyed = fmt.Appendf(keyed, "\x00%d:%s%d:%s", len(f.name), f.name, len(f.data), f.data)
	}
	return b.keyOf(ctx, l, "tether-build-1", commands, keyed)
}

// keyOf is the cache key of what argv makes of source and l's host files
// (kind tells builds apart from the host's prebuilt objects).
func (b *Builder) keyOf(ctx context.Context, l *Language, kind string, argv []string, source []byte) (string, error) {
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	field(kind)
	field(l.ID)
	field(l.Source)
	for _, a := range argv {
		field(a)
	}
	field(strings.Join(b.Env, "\x00"))
	if len(l.CompileEnv) > 0 {
		field(strings.Join(l.CompileEnv, "\x00"))
	}
	field(toolchain(ctx, l, b.Env))
	field(l.SupportVersion)
	support, err := supportFiles(l)
	if err != nil {
		return "", err
	}
	for _, f := range support {
		field(f.name)
		field(string(f.data))
	}
	field(b.Host)
	field(string(source))
	return hex.EncodeToString(h.Sum(nil)), nil
}

// toolchain names the compiler the judge would run: its resolved path,
// size and modification time, and what its version command prints. It is
// asked once per compiler binary per process.
func toolchain(ctx context.Context, l *Language, env []string) string {
	path, err := l.findTool(l.Compile[0])
	if err != nil {
		return "hidden:" + l.Compile[0]
	}
	info, err := os.Stat(path)
	if err != nil {
		return "missing:" + path
	}
	id := fmt.Sprintf("%s %d %d", path, info.Size(), info.ModTime().UnixNano())
	toolchainMu.Lock()
	defer toolchainMu.Unlock()
	if v, ok := toolchains[id+"\x00"+strings.Join(l.Version, " ")]; ok {
		return v
	}
	v := id
	if len(l.Version) > 0 {
		out, _ := Version(ctx, l, env)
		v += " " + out
	}
	toolchains[id+"\x00"+strings.Join(l.Version, " ")] = v
	return v
}

var (
	toolchainMu sync.Mutex
	toolchains  = map[string]string{}
)

// Version runs l's version command on the host (not sandboxed: it runs
// the operator's toolchain, not a submission) and returns its first line.
func Version(ctx context.Context, l *Language, env []string) (string, error) {
	if len(l.Version) == 0 {
		return "", errors.New("no version command")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// A compiler's version is that of the one the compile step runs.
	tool := l.Version[0]
	if l.Compiled() {
		var err error
		if tool, err = l.findTool(tool); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, tool, l.Version[1:]...)
	if env != nil {
		cmd.Env = env
	}
	out, err := cmd.CombinedOutput()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil {
		if line != "" {
			return "", fmt.Errorf("%s: %w: %s", strings.Join(l.Version, " "), err, line)
		}
		return "", fmt.Errorf("%s: %w", strings.Join(l.Version, " "), err)
	}
	return line, nil
}
