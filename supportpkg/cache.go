package supportpkg

import (
	"container/list"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Options of a Cache; zero values mean Neuro OJ's defaults.
type Options struct {
	Dir             string         // cache folder (SUPPORT_CACHE_DIR); default the user's cache dir + tether/packages
	MaxItems        int            // SUPPORT_CACHE_MAX_ITEMS, default 500
	MaxBytes        int64          // SUPPORT_CACHE_MAX_MB * 1 MiB, default 2048 MiB
	DownloadTimeout time.Duration  // SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT, default 60 s
	RootCAs         *x509.CertPool // nil: the system pool (tests pass httptest's CA)
	OnEvent         func(Event)    // optional, for metrics; called synchronously, never under a lock
}

// Defaults of Options, Neuro OJ's.
const (
	DefaultMaxItems        = 500
	DefaultMaxBytes        = 2048 << 20
	DefaultDownloadTimeout = 60 * time.Second
)

// Cache fetches support packages into a folder named by their SHA-256, one
// download per checksum at a time, and keeps them LRU within MaxItems and
// MaxBytes. Safe for concurrent use; several processes may share a folder
// (files only ever appear by rename).
type Cache struct {
	dir      string
	maxItems int
	maxBytes int64
	timeout  time.Duration
	client   *http.Client
	onEvent  func(Event)
	limits   limits
	flight   singleflight.Group

	mu    sync.Mutex
	lru   *list.List // of *cacheEntry, most recent at the front
	index map[string]*list.Element
	total int64
	// told holds the URLs (hashed) of the packages without a checksum
	// already told as EventUnchecked; emptied at maxTold.
	told map[[sha256.Size]byte]bool
}

// maxTold bounds Cache.told: past it, each package is told once more.
const maxTold = 4096

// NewCache opens (creating it 0700 if needed) the cache folder and indexes
// the packages already there, oldest use first, by modification time.
func NewCache(opts Options) (*Cache, error) {
	c := &Cache{
		dir:      opts.Dir,
		maxItems: opts.MaxItems,
		maxBytes: opts.MaxBytes,
		timeout:  opts.DownloadTimeout,
		client:   newClient(opts.RootCAs),
		onEvent:  opts.OnEvent,
		limits:   defaultLimits,
		lru:      list.New(),
		index:    map[string]*list.Element{},
	}
	switch {
	case c.maxItems < 0:
		return nil, fmt.Errorf("support package cache: the item cap (SUPPORT_CACHE_MAX_ITEMS) must not be negative, got %d", c.maxItems)
	case c.maxItems == 0:
		c.maxItems = DefaultMaxItems
	}
	switch {
	case c.maxBytes < 0:
		return nil, fmt.Errorf("support package cache: the size cap (SUPPORT_CACHE_MAX_MB) must not be negative, got %d bytes", c.maxBytes)
	case c.maxBytes == 0:
		c.maxBytes = DefaultMaxBytes
	}
	switch {
	case c.timeout < 0:
		return nil, fmt.Errorf("support package cache: the download timeout (SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT) must not be negative, got %s", c.timeout)
	case c.timeout == 0:
		c.timeout = DefaultDownloadTimeout
	}
	if c.dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("support package cache: no cache folder given and none found for this user (%v); set SUPPORT_CACHE_DIR or --cache-dir", err)
		}
		c.dir = filepath.Join(base, "tether", "packages")
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("support package cache: cannot create the cache folder %s: %w; set SUPPORT_CACHE_DIR or --cache-dir to a writable folder", c.dir, err)
	}
	if err := c.scan(); err != nil {
		return nil, err
	}
	return c, nil
}

// Dir is the cache folder in use.
func (c *Cache) Dir() string { return c.dir }

// Extract fetches (or takes from the cache, re-checking the SHA-256) the
// package named by downloadURL and unpacks it safely into destDir, which
// must exist and be empty. Errors name the cause in words and wrap
// ErrPackage; on error destDir is left empty.
func (c *Cache) Extract(ctx context.Context, downloadURL, destDir string) error {
	src, err := parseURL(downloadURL)
	if err != nil {
		return err
	}
	if err := checkDest(destDir); err != nil {
		return err
	}
	if src.checksum == "" {
		return c.extractUnchecked(ctx, src, destDir)
	}
	f, size, err := c.get(ctx, src)
	if err != nil {
		return err
	}
	defer f.Close()
	return unzip(ctx, f, size, destDir, c.limits)
}

// extractUnchecked fetches a package whose URL gives no checksum into a
// temporary file of its own, unpacks it and removes it: with nothing to
// check it against, it is neither taken from nor kept in the cache.
func (c *Cache) extractUnchecked(ctx context.Context, src *source, destDir string) error {
	tmp, err := os.CreateTemp(c.dir, tmpPrefix+"unchecked-*")
	if err != nil {
		return fail(err, "cannot write to the cache folder "+c.dir)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h := sha256.New()
	n, err := c.fetch(ctx, src, io.MultiWriter(tmp, h))
	if err != nil {
		return err
	}
	if c.firstTold(src.raw) {
		ev := c.event(EventUnchecked, hex.EncodeToString(h.Sum(nil)), n)
		ev.URL = redact(src.raw)
		c.emit(ev)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fail(err, "reading the fetched package failed")
	}
	return unzip(ctx, tmp, n, destDir, c.limits)
}

// firstTold reports whether the package at rawURL is told as unchecked
// for the first time, and notes it.
func (c *Cache) firstTold(rawURL string) bool {
	key := sha256.Sum256([]byte(rawURL))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.told[key] {
		return false
	}
	if c.told == nil || len(c.told) >= maxTold {
		c.told = map[[sha256.Size]byte]bool{}
	}
	c.told[key] = true
	return true
}

var (
	errCorrupt    = errors.New("cached file does not match its checksum")
	errLeaderGone = errors.New("the download was started for a caller that gave up")
)

// leaderGone marks the error of a download whose caller gave up, for the
// callers waiting on it to try again; its message is the error's own.
type leaderGone struct{ err error }

func (l leaderGone) Error() string   { return l.err.Error() }
func (l leaderGone) Unwrap() []error { return []error{errLeaderGone, l.err} }

// get returns the verified package file, open: once open, eviction (an
// unlink) cannot take it away.
func (c *Cache) get(ctx context.Context, src *source) (*os.File, int64, error) {
	sum := src.checksum
	missed := false
	for attempt := 0; ; attempt++ {
		f, size, err := c.openVerified(sum)
		switch {
		case err == nil:
			if !missed {
				c.emit(c.event(EventHit, sum, size))
			}
			c.touch(sum)
			return f, size, nil
		case errors.Is(err, errCorrupt):
			c.forget(sum)
			c.emit(c.event(EventCorrupt, sum, size))
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, 0, fail(err, "reading the cached package failed")
		}
		if attempt >= 4 {
			return nil, 0, fail(nil, "the package was fetched but left the cache before it could be used; SUPPORT_CACHE_MAX_ITEMS or SUPPORT_CACHE_MAX_MB is too small for the packages in use")
		}
		if !missed {
			missed = true
			c.emit(c.event(EventMiss, sum, 0))
		}
		// One download per checksum: the others wait for it and then read
		// the file it stored. If its caller gave up, the next one fetches.
		_, err, _ = c.flight.Do(sum, func() (any, error) {
			// A download that ended between our miss and this call has
			// stored the file already: no second download.
			if _, err := os.Stat(c.path(sum)); err == nil {
				return nil, nil
			}
			return nil, c.store(ctx, src)
		})
		if err != nil && !(errors.Is(err, errLeaderGone) && ctx.Err() == nil) {
			return nil, 0, err
		}
	}
}

func (c *Cache) openVerified(sum string) (*os.File, int64, error) {
	f, err := os.Open(c.path(sum))
	if err != nil {
		return nil, 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err == nil && hex.EncodeToString(h.Sum(nil)) != sum {
		err = errCorrupt
	}
	if err != nil {
		f.Close()
		return nil, n, err
	}
	return f, n, nil
}

// store fetches src to a temporary file, checks its SHA-256 and renames it
// into place.
func (c *Cache) store(ctx context.Context, src *source) error {
	sum := src.checksum
	tmp, err := os.CreateTemp(c.dir, tmpPrefix+sum[:16]+"-*")
	if err != nil {
		return fail(err, "cannot write to the cache folder "+c.dir)
	}
	h := sha256.New()
	n, err := c.fetch(ctx, src, io.MultiWriter(tmp, h))
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fail(cerr, "writing the package to the cache folder "+c.dir+" failed")
	}
	if err == nil {
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			err = fail(nil, fmt.Sprintf("checksum mismatch: the URL says SHA-256 %s, the %d bytes received have %s", sum, n, got))
		}
	}
	if err == nil {
		if rerr := os.Rename(tmp.Name(), c.path(sum)); rerr != nil {
			err = fail(rerr, "storing the package in the cache folder "+c.dir+" failed")
		}
	}
	if err != nil {
		os.Remove(tmp.Name())
		if ctx.Err() != nil {
			return leaderGone{err}
		}
		return err
	}
	c.mu.Lock()
	if el, ok := c.index[sum]; ok {
		e := el.Value.(*cacheEntry)
		c.total += n - e.size
		e.size = n
		c.lru.MoveToFront(el)
	} else {
		c.index[sum] = c.lru.PushFront(&cacheEntry{sum, n})
		c.total += n
	}
	evs := append([]Event{c.eventLocked(EventStore, sum, n)}, c.evictLocked(sum)...)
	c.mu.Unlock()
	c.emit(evs...)
	return nil
}

// checkDest refuses a destination that is missing, not a folder, or not
// empty: a package is never merged into other files.
func checkDest(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fail(err, "the destination folder cannot be used")
	}
	if !info.IsDir() {
		return fail(nil, "the destination "+dir+" is not a folder")
	}
	f, err := os.Open(dir)
	if err != nil {
		return fail(err, "the destination folder cannot be read")
	}
	defer f.Close()
	if names, _ := f.Readdirnames(1); len(names) > 0 {
		return fail(nil, "the destination folder "+dir+" is not empty (it holds "+names[0]+")")
	}
	return nil
}
