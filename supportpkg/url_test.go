package supportpkg

import (
	"context"
	"strings"
	"testing"
)

func TestParseURLErrors(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	c, _ := newCache(t, Options{})
	for _, tc := range []struct{ url, word string }{
		{"", "empty"},
		{"ftp://example.com/p.zip", "none of"},
		{"http://example.com/p.zip#checksum_sha256=" + sum, "none of"},
		{"noj-download://base64/?content=UEs=&checksum_sha256=abc", "64 hex digits"},
		{"noj-download://base64/?content=UEs=&checksum_sha256=" + strings.Repeat("zz", 32), "64 hex digits"},
		{"noj-download://base64/?checksum_sha256=" + sum, "no content parameter"},
		{"noj-download://s3?checksum_sha256=" + sum, "no url parameter"},
		{"noj-download://s3?url=http%3A%2F%2Fexample.com%2Fp.zip&checksum_sha256=" + sum, "not https"},
		{"noj-download://s3?url=https%3A%2F%2F&checksum_sha256=" + sum, "no host"},
		{"noj-download://s3?url=%zz&checksum_sha256=" + sum, "percent-encoding"},
		{"noj-download://local?path=%2Fetc%2Fp.zip&checksum_sha256=" + sum, "not accepted"},
		{"noj-download://ftp?url=x&checksum_sha256=" + sum, "not a known form"},
		{"noj-download://s3?url=https%3A%2F%2F169.254.169.254%2Flatest%2Fmeta-data&checksum_sha256=" + sum, "link-local"},
		{"https://[fe80::1]/p.zip#checksum_sha256=" + sum, "link-local"},
		{"https://0.0.0.0/p.zip#checksum_sha256=" + sum, "unspecified"},
	} {
		err := c.Extract(context.Background(), tc.url, t.TempDir())
		mustFail(t, err, tc.word)
	}
}

func TestParseURLForms(t *testing.T) {
	sum := strings.Repeat("AB", 32)
	src, err := parseURL("noj-download://base64/?content=a+b/c==&checksum_sha256=" + sum)
	if err != nil || src.content != "a+b/c==" || src.checksum != strings.ToLower(sum) {
		t.Errorf("base64 form: %+v %v; want the '+' kept and the checksum in lower case", src, err)
	}
	// No slash before the query, as Neuro OJ's parser also accepts.
	if src, err := parseURL("noj-download://base64?content=QQ==&checksum_sha256=" + sum); err != nil || src.content != "QQ==" {
		t.Errorf("base64 form without '/': %+v %v", src, err)
	}
	src, err = parseURL("noj-download://s3?url=https%3A%2F%2Fs3.example.com%2Fb%2Fp.zip%3FX-Amz-Signature%3Da%252Bb&checksum_sha256=" + sum)
	if err != nil || src.httpsURL != "https://s3.example.com/b/p.zip?X-Amz-Signature=a%2Bb" {
		t.Errorf("s3 form: %+v %v", src, err)
	}
	src, err = parseURL("https://example.com/p.zip?v=1#checksum_sha256=" + sum)
	if err != nil || src.httpsURL != "https://example.com/p.zip?v=1" {
		t.Errorf("https form: %+v %v; want the fragment dropped from what is fetched", src, err)
	}
}

func TestRedact(t *testing.T) {
	for _, u := range []string{
		"https://s3.example.com/p.zip?X-Amz-Signature=secret",
		"https://user:secret@s3.example.com/p.zip",
		"https://s3.example.com/p.zip#secret",
		"not a url?secret",
	} {
		if got := redact(u); strings.Contains(got, "secret") {
			t.Errorf("redact(%q) = %q: it kept the secret", u, got)
		}
	}
	if got := redact("https://s3.example.com/b/p.zip?sig=x"); !strings.HasPrefix(got, "https://s3.example.com/b/p.zip") {
		t.Errorf("redact dropped the host and path: %q", got)
	}
}

// TestDialRefusesLinkLocal: a name that resolves to a metadata address is
// stopped when the connection is made, not only a literal in the URL.
func TestDialRefusesLinkLocal(t *testing.T) {
	for _, addr := range []string{"169.254.169.254:443", "[fe80::1]:443", "0.0.0.0:443", "224.0.0.1:443"} {
		if err := refuseLinkLocal("tcp", addr, nil); err == nil {
			t.Errorf("dial to %s allowed", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:443", "10.0.0.5:9000", "[::1]:443", "93.184.216.34:443"} {
		if err := refuseLinkLocal("tcp", addr, nil); err != nil {
			t.Errorf("dial to %s refused: %v", addr, err)
		}
	}
}
