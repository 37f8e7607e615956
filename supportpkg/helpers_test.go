package supportpkg

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// zipEntry is one entry of a test zip; Mode 0 means 0644.
type zipEntry struct {
	Name string
	Body string
	Mode fs.FileMode
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.Name, Method: zip.Deflate}
		mode := e.Mode
		if mode == 0 {
			mode = 0o644
		}
		hdr.SetMode(mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sumHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// newCache makes a cache in a fresh folder; events are recorded.
func newCache(t *testing.T, opts Options) (*Cache, *events) {
	t.Helper()
	ev := &events{}
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "cache")
	}
	if opts.OnEvent == nil {
		opts.OnEvent = ev.add
	}
	c, err := NewCache(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, ev
}

type events struct {
	mu   sync.Mutex
	list []Event
	// onMiss, if set, is called with the number of misses so far.
	onMiss func(n int)
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	n := 0
	for _, x := range e.list {
		if x.Kind == EventMiss {
			n++
		}
	}
	f := e.onMiss
	e.mu.Unlock()
	if ev.Kind == EventMiss && f != nil {
		f(n)
	}
}

func (e *events) count(kind EventKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, x := range e.list {
		if x.Kind == kind {
			n++
		}
	}
	return n
}

// pkgServer is a local TLS server that serves one body and counts GETs.
type pkgServer struct {
	*httptest.Server
	hits atomic.Int64
}

func servePackage(t *testing.T, h http.HandlerFunc) *pkgServer {
	t.Helper()
	s := &pkgServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func bodyHandler(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }
}

// s3URL is the noj-download://s3 form of a URL on the server, with a
// presigned-looking query that must reach the server intact.
func s3URL(srv *pkgServer, sum string) string {
	return "noj-download://s3?url=" + url.QueryEscape(srv.URL+"/packages/p.zip?X-Amz-Signature=a+b%2F") + "&checksum_sha256=" + sum
}

func tlsOpts(srv *pkgServer) Options {
	return Options{RootCAs: poolOf(srv)}
}

// mustFail checks that err wraps ErrPackage and says each of words.
func mustFail(t *testing.T, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", words)
	}
	if !errors.Is(err, ErrPackage) {
		t.Errorf("error %q does not wrap ErrPackage", err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("%s holds %d entries after a failed extract (first %s); want none", dir, len(ents), ents[0].Name())
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cached lists the package files in the cache folder and any temp files.
func cached(t *testing.T, c *Cache) (zips, tmps []string) {
	t.Helper()
	ents, err := os.ReadDir(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), tmpPrefix):
			tmps = append(tmps, e.Name())
		case strings.HasSuffix(e.Name(), ".zip"):
			zips = append(zips, strings.TrimSuffix(e.Name(), ".zip"))
		}
	}
	return zips, tmps
}

// checkCachedZips fails t unless the cache holds exactly the packages zs,
// in any order.
func checkCachedZips(t *testing.T, c *Cache, zs ...[]byte) {
	t.Helper()
	zips, _ := cached(t, c)
	want := make([]string, len(zs))
	for i, z := range zs {
		want[i] = sumHex(z)
	}
	slices.Sort(zips)
	slices.Sort(want)
	if !slices.Equal(zips, want) {
		t.Errorf("cache holds %v; want %v", zips, want)
	}
}

func poolOf(srv *pkgServer) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(srv.Certificate())
	return p
}
