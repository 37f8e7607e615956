package supportpkg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func aplusbZip(t *testing.T) []byte {
	return makeZip(t,
		zipEntry{Name: "problem.json", Body: `{"format_version":1}`},
		zipEntry{Name: "evaluate.py", Body: "print('evaluate')\n"},
		zipEntry{Name: "data/cases.jsonl", Body: "{\"a\":1}\n"},
	)
}

func TestExtractBase64(t *testing.T) {
	// Find a package whose standard base64 has a '+' (and a '/'): both must
	// survive, unencoded, as Neuro OJ's core writes them.
	var zb []byte
	for i := 0; ; i++ {
		zb = makeZip(t, zipEntry{Name: "evaluate.py", Body: fmt.Sprintf("print(%d)\n", i)})
		u := Base64URL(zb)
		if strings.Contains(u, "+") && strings.Contains(u[len("noj-download://base64/"):], "/") {
			break
		}
	}
	c, ev := newCache(t, Options{})
	dest := t.TempDir()
	if err := c.Extract(context.Background(), Base64URL(zb), dest); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dest, "evaluate.py")); !strings.HasPrefix(got, "print(") {
		t.Errorf("evaluate.py = %q", got)
	}
	if ev.count(EventMiss) != 1 || ev.count(EventStore) != 1 || ev.count(EventHit) != 0 {
		t.Errorf("events %+v; want one miss, one store", ev.list)
	}
	// The same content percent-encoded (as a form encoder would send it)
	// reads the same.
	enc := strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(Base64URL(zb)[len("noj-download://base64/?content="):strings.Index(Base64URL(zb), "&")])
	dest2 := t.TempDir()
	if err := c.Extract(context.Background(), "noj-download://base64/?content="+enc+"&checksum_sha256="+sumHex(zb), dest2); err != nil {
		t.Fatal(err)
	}
	if ev.count(EventHit) != 1 {
		t.Errorf("second extract: %d hits; want 1", ev.count(EventHit))
	}
}

func TestExtractBase64PlusAsSpaceSaysSo(t *testing.T) {
	var zb []byte
	for i := 0; ; i++ {
		zb = makeZip(t, zipEntry{Name: "evaluate.py", Body: fmt.Sprintf("print(%d)\n", i)})
		if strings.Contains(Base64URL(zb), "+") {
			break
		}
	}
	c, _ := newCache(t, Options{})
	dest := t.TempDir()
	err := c.Extract(context.Background(), strings.ReplaceAll(Base64URL(zb), "+", " "), dest)
	mustFail(t, err, "not standard base64", "'+'")
	emptyDir(t, dest)
}

func TestExtractS3FromTLSServer(t *testing.T) {
	zb := aplusbZip(t)
	var gotQuery string
	srv := servePackage(t, func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.RawQuery
		w.Write(zb)
	})
	c, ev := newCache(t, tlsOpts(srv))
	for i := range 2 {
		dest := t.TempDir()
		if err := c.Extract(context.Background(), s3URL(srv, sumHex(zb)), dest); err != nil {
			t.Fatalf("extract %d: %v", i, err)
		}
		if got := readFile(t, filepath.Join(dest, "data", "cases.jsonl")); got != "{\"a\":1}\n" {
			t.Errorf("extract %d: data/cases.jsonl = %q", i, got)
		}
	}
	if gotQuery != "X-Amz-Signature=a+b%2F" {
		t.Errorf("the server saw query %q; want the presigned query intact", gotQuery)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d downloads for two extracts; want 1 (the second from the cache)", n)
	}
	if ev.count(EventHit) != 1 || ev.count(EventMiss) != 1 {
		t.Errorf("events %+v; want one miss then one hit", ev.list)
	}
}

func TestExtractPlainHTTPS(t *testing.T) {
	zb := aplusbZip(t)
	srv := servePackage(t, bodyHandler(zb))
	c, _ := newCache(t, tlsOpts(srv))
	dest := t.TempDir()
	if err := c.Extract(context.Background(), srv.URL+"/p.zip#checksum_sha256="+sumHex(zb), dest); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "evaluate.py")); err != nil {
		t.Error(err)
	}
	// Without the fragment it is used unchecked
	// (TestPackageWithoutChecksumIsUsedUnchecked); with a wrong one it fails.
	err := c.Extract(context.Background(), srv.URL+"/p.zip#checksum_sha256="+strings.Repeat("ab", 32), t.TempDir())
	mustFail(t, err, "checksum mismatch")
}

func TestExtractUntrustedCertificate(t *testing.T) {
	zb := aplusbZip(t)
	srv := servePackage(t, bodyHandler(zb))
	c, _ := newCache(t, Options{}) // the system pool does not hold httptest's CA
	err := c.Extract(context.Background(), s3URL(srv, sumHex(zb)), t.TempDir())
	mustFail(t, err, "certificate")
}

func TestChecksumMismatch(t *testing.T) {
	zb := aplusbZip(t)
	other := sumHex([]byte("something else"))
	srv := servePackage(t, bodyHandler(zb))
	c, _ := newCache(t, tlsOpts(srv))
	for name, u := range map[string]string{
		"base64": "noj-download://base64/?content=" + Base64URL(zb)[len("noj-download://base64/?content="):strings.Index(Base64URL(zb), "&")] + "&checksum_sha256=" + other,
		"s3":     s3URL(srv, other),
	} {
		t.Run(name, func(t *testing.T) {
			dest := t.TempDir()
			err := c.Extract(context.Background(), u, dest)
			mustFail(t, err, "checksum mismatch", other, sumHex(zb))
			emptyDir(t, dest)
			zips, tmps := cached(t, c)
			if len(zips)+len(tmps) != 0 {
				t.Errorf("cache holds %v %v after a mismatch; want nothing", zips, tmps)
			}
		})
	}
}

func TestDownloadRefusals(t *testing.T) {
	zb := aplusbZip(t)
	sum := sumHex(zb)
	redirect := servePackage(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.invalid/p.zip", http.StatusFound)
	})
	missing := servePackage(t, http.NotFound)
	big := servePackage(t, bodyHandler(bytes.Repeat([]byte("x"), 4096)))
	chunked := servePackage(t, func(w http.ResponseWriter, _ *http.Request) {
		for range 8 {
			w.Write(bytes.Repeat([]byte("x"), 512))
			w.(http.Flusher).Flush() // no Content-Length: the cap counts bytes
		}
	})
	pool := poolOf(redirect)
	for _, s := range []*pkgServer{missing, big, chunked} {
		pool.AddCert(s.Certificate())
	}
	c, _ := newCache(t, Options{RootCAs: pool})
	c.limits.packageBytes = 1024
	for _, tc := range []struct {
		name, url string
		words     []string
	}{
		{"http", "noj-download://s3?url=" + "http%3A%2F%2F127.0.0.1%2Fp.zip&checksum_sha256=" + sum, []string{"not https"}},
		{"redirect", s3URL(redirect, sum), []string{"redirect", "HTTP 302", "not followed"}},
		{"status", s3URL(missing, sum), []string{"HTTP 404"}},
		{"too big", s3URL(big, sum), []string{"more than the cap of"}},
		{"too big chunked", s3URL(chunked, sum), []string{"more than the cap of"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			err := c.Extract(context.Background(), tc.url, dest)
			mustFail(t, err, tc.words...)
			emptyDir(t, dest)
			if zips, tmps := cached(t, c); len(zips)+len(tmps) != 0 {
				t.Errorf("cache holds %v %v; want nothing", zips, tmps)
			}
		})
	}
	if strings.Contains(fmt.Sprint(c.Extract(context.Background(), s3URL(missing, sum), t.TempDir())), "X-Amz-Signature") {
		t.Error("an error message shows the presigned query")
	}
}

func TestDownloadTimeout(t *testing.T) {
	srv := servePackage(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("PK")) // headers and a first byte, then nothing
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c, _ := newCache(t, Options{RootCAs: poolOf(srv), DownloadTimeout: 100 * time.Millisecond})
	dest := t.TempDir()
	err := c.Extract(context.Background(), s3URL(srv, sumHex([]byte("x"))), dest)
	mustFail(t, err, "timed out after 100ms", "SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
	}
	emptyDir(t, dest)
}

// TestOneDownloadPerChecksum: eight callers of one package, the download
// held until all eight have missed: one GET.
func TestOneDownloadPerChecksum(t *testing.T) {
	const callers = 8
	zb := aplusbZip(t)
	release := make(chan struct{})
	entered := make(chan struct{}, callers)
	srv := servePackage(t, func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		w.Write(zb)
	})
	c, ev := newCache(t, tlsOpts(srv))
	var once sync.Once
	missed := make(chan struct{})
	ev.onMiss = func(n int) {
		if n == callers {
			once.Do(func() { close(missed) })
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { errs[i] = c.Extract(context.Background(), s3URL(srv, sumHex(zb)), t.TempDir()) })
	}
	<-entered
	// A temp file is being written; the package's own name does not exist
	// until it is complete and checked.
	zips, tmps := cached(t, c)
	if len(zips) != 0 || len(tmps) != 1 {
		t.Errorf("during the download the cache holds %v and temp files %v; want one temp file only", zips, tmps)
	}
	<-missed
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d downloads for %d callers of one checksum; want 1", n, callers)
	}
	zips, tmps = cached(t, c)
	if !slices.Equal(zips, []string{sumHex(zb)}) || len(tmps) != 0 {
		t.Errorf("after: cache holds %v and temp files %v; want the package only", zips, tmps)
	}
}

// TestLeaderGivesUp: the caller whose download the others wait for is
// cancelled; the next one fetches for itself.
func TestLeaderGivesUp(t *testing.T) {
	zb := aplusbZip(t)
	first := make(chan struct{})
	var mu sync.Mutex
	n := 0
	srv := servePackage(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		me := n
		mu.Unlock()
		if me == 1 {
			close(first)
			<-r.Context().Done()
			return
		}
		w.Write(zb)
	})
	c, ev := newCache(t, tlsOpts(srv))
	missedTwice := make(chan struct{})
	var once sync.Once
	ev.onMiss = func(n int) {
		if n == 2 {
			once.Do(func() { close(missedTwice) })
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leaderErr := make(chan error, 1)
	go func() { leaderErr <- c.Extract(ctx, s3URL(srv, sumHex(zb)), t.TempDir()) }()
	<-first
	followerErr := make(chan error, 1)
	go func() { followerErr <- c.Extract(context.Background(), s3URL(srv, sumHex(zb)), t.TempDir()) }()
	<-missedTwice
	cancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) || !errors.Is(err, ErrPackage) || !strings.HasPrefix(err.Error(), "support package: download of") {
		t.Errorf("leader: %v; want a support package error wrapping context.Canceled", err)
	}
	if err := <-followerErr; err != nil {
		t.Errorf("follower: %v; want it to fetch for itself", err)
	}
}

func TestCacheHitRechecksChecksum(t *testing.T) {
	zb := aplusbZip(t)
	srv := servePackage(t, bodyHandler(zb))
	c, ev := newCache(t, tlsOpts(srv))
	if err := c.Extract(context.Background(), s3URL(srv, sumHex(zb)), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	// Damage the cached copy (one byte): the next use must notice.
	p := filepath.Join(c.Dir(), sumHex(zb)+".zip")
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := c.Extract(context.Background(), s3URL(srv, sumHex(zb)), dest); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dest, "evaluate.py")); got != "print('evaluate')\n" {
		t.Errorf("evaluate.py = %q", got)
	}
	if ev.count(EventCorrupt) != 1 || srv.hits.Load() != 2 {
		t.Errorf("%d corrupt events, %d downloads; want 1 and 2", ev.count(EventCorrupt), srv.hits.Load())
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, zb) {
		t.Error("the cached copy was not replaced by a good one")
	}
}

func distinctZips(t *testing.T, n int) [][]byte {
	var out [][]byte
	for i := range n {
		out = append(out, makeZip(t, zipEntry{Name: "evaluate.py", Body: fmt.Sprintf("print(%d)\n", i)}))
	}
	return out
}

func TestLRUEvictionByCount(t *testing.T) {
	zs := distinctZips(t, 3)
	c, ev := newCache(t, Options{MaxItems: 2})
	use := func(z []byte) {
		t.Helper()
		if err := c.Extract(context.Background(), Base64URL(z), t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	use(zs[0])
	use(zs[1])
	use(zs[0]) // zs[0] is now the most recent: zs[1] goes first
	use(zs[2])
	checkCachedZips(t, c, zs[0], zs[2]) // the least recently used evicted
	if ev.count(EventEvict) != 1 {
		t.Errorf("%d evictions; want 1", ev.count(EventEvict))
	}
	// Evicted means fetched again, not an error.
	use(zs[1])
	if ev.count(EventMiss) != 4 {
		t.Errorf("%d misses; want 4", ev.count(EventMiss))
	}
}

func TestLRUEvictionBySize(t *testing.T) {
	zs := distinctZips(t, 3)
	size := int64(len(zs[0]))
	c, ev := newCache(t, Options{MaxBytes: 2*size + size/2})
	for _, z := range zs {
		if err := c.Extract(context.Background(), Base64URL(z), t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	checkCachedZips(t, c, zs[1], zs[2])
	last := ev.list[len(ev.list)-1]
	if last.TotalBytes > 2*size+size/2 || last.Items != 2 {
		t.Errorf("last event %+v: the cache is over its size cap", last)
	}
	// One package larger than the whole cap is still used (and kept until
	// the next one arrives).
	c2, _ := newCache(t, Options{MaxBytes: size / 2})
	if err := c2.Extract(context.Background(), Base64URL(zs[0]), t.TempDir()); err != nil {
		t.Fatalf("a package over the size cap: %v", err)
	}
}

func TestNewCacheIndexesWhatIsThere(t *testing.T) {
	zs := distinctZips(t, 3)
	dir := filepath.Join(t.TempDir(), "cache")
	os.MkdirAll(dir, 0o700)
	old := time.Now().Add(-2 * time.Hour)
	for i, z := range zs {
		p := filepath.Join(dir, sumHex(z)+".zip")
		os.WriteFile(p, z, 0o600)
		// zs[0] is the oldest use, zs[2] the newest.
		tm := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, tm, tm)
	}
	staleTmp := filepath.Join(dir, tmpPrefix+"stale")
	freshTmp := filepath.Join(dir, tmpPrefix+"fresh")
	os.WriteFile(staleTmp, []byte("x"), 0o600)
	os.Chtimes(staleTmp, old, old)
	os.WriteFile(freshTmp, []byte("x"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)

	c, ev := newCache(t, Options{Dir: dir, MaxItems: 2})
	if _, err := os.Stat(staleTmp); !os.IsNotExist(err) {
		t.Error("a temp file older than an hour was kept")
	}
	if _, err := os.Stat(freshTmp); err != nil {
		t.Error("a fresh temp file (another worker's download) was removed")
	}
	if _, err := os.Stat(filepath.Join(dir, sumHex(zs[0])+".zip")); !os.IsNotExist(err) {
		t.Error("the least recently used package was kept over MaxItems")
	}
	if err := c.Extract(context.Background(), Base64URL(zs[2])+"", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if ev.count(EventHit) != 1 || ev.count(EventMiss) != 0 {
		t.Errorf("events %+v; want a hit from the existing file", ev.list)
	}
}

func TestNewCacheErrors(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		word string
	}{
		{Options{Dir: t.TempDir(), MaxItems: -1}, "SUPPORT_CACHE_MAX_ITEMS"},
		{Options{Dir: t.TempDir(), MaxBytes: -1}, "SUPPORT_CACHE_MAX_MB"},
		{Options{Dir: t.TempDir(), DownloadTimeout: -time.Second}, "SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT"},
		{Options{Dir: "/proc/no/such/place"}, "cannot create the cache folder"},
	} {
		if _, err := NewCache(tc.opts); err == nil || !strings.Contains(err.Error(), tc.word) {
			t.Errorf("NewCache(%+v) = %v; want an error saying %q", tc.opts, err, tc.word)
		}
	}
}

func TestDestination(t *testing.T) {
	c, _ := newCache(t, Options{})
	zb := aplusbZip(t)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o600)
	mustFail(t, c.Extract(context.Background(), Base64URL(zb), full), "not empty")
	mustFail(t, c.Extract(context.Background(), Base64URL(zb), filepath.Join(full, "missing")), "destination")
	mustFail(t, c.Extract(context.Background(), Base64URL(zb), filepath.Join(full, "x")), "not a folder")
}

func TestExtractCancelled(t *testing.T) {
	c, _ := newCache(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dest := t.TempDir()
	err := c.Extract(ctx, Base64URL(aplusbZip(t)), dest)
	mustFail(t, err, "unpacking stopped")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
	emptyDir(t, dest)
}

// A package whose URL gives no checksum is used unchecked, as Neuro OJ's
// judge does: fetched on every use and never cached (nothing to check a
// cached copy against), told as EventUnchecked once per package. One with
// a checksum is still checked.
func TestPackageWithoutChecksumIsUsedUnchecked(t *testing.T) {
	zb := aplusbZip(t)
	srv := servePackage(t, bodyHandler(zb))
	c, ev := newCache(t, tlsOpts(srv))
	noSum := strings.Split(Base64URL(zb), "&")[0]
	https := srv.URL + "/packages/p.zip"
	for _, u := range []string{noSum, noSum, https, https, noSum + "&checksum_sha256="} {
		dest := t.TempDir()
		if err := c.Extract(context.Background(), u, dest); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if got := readFile(t, filepath.Join(dest, "evaluate.py")); got != "print('evaluate')\n" {
			t.Fatalf("%s: evaluate.py = %q", u, got)
		}
	}
	if n := srv.hits.Load(); n != 2 {
		t.Errorf("the https package was fetched %d times, want on each of its 2 uses", n)
	}
	if got := ev.count(EventUnchecked); got != 3 {
		t.Errorf("%d unchecked events, want one per package URL (3): %+v", got, ev.list)
	}
	for _, e := range ev.list {
		if e.Kind == EventUnchecked && (e.Checksum != sumHex(zb) || strings.Contains(e.URL, "content=")) {
			t.Errorf("unchecked event %+v: want the SHA-256 of what came and the URL without its query", e)
		}
	}
	if zips, tmps := cached(t, c); len(zips) != 0 || len(tmps) != 0 {
		t.Errorf("an unchecked package left files in the cache: %v %v", zips, tmps)
	}
	err := c.Extract(context.Background(), noSum+"&checksum_sha256="+strings.Repeat("ab", 32), t.TempDir())
	mustFail(t, err, "checksum mismatch")
}
