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
		{"noj-download://base64/?content=UEs=", "checksum_sha256 parameter is missing"},
		{"noj-download://base64/?content=UEs=&checksum_sha256=abc", "64 hex digits"},
		{"noj-download://base64/?content=UEs=&checksum_sha256=" + strings.Repeat("zz", 32), "64 hex digits"},
		{"noj-download://base64/?checksum_sha256=" + sum, "no content parameter"},
		{"noj-download://s3?checksum_sha256=" + sum, "no url parameter"},
		{"noj-download://s3?url=http%3A%2F%2Fexample.com%2Fp.zip&checksum_sha256=" + sum, "not https"},
		{"noj-download://s3?url=https%3A%2F%2F&checksum_sha256=" + sum, "no host"},
		{"noj-download://s3?url=%zz&checksum_sha256=" + sum, "percent-encoding"},
		{"noj-download://local?path=%2Fetc%2Fp.zip&checksum_sha256=" + sum, "not accepted"},
		{"noj-download://ftp?url=x&checksum_sha256=" + sum, "not a known form"},
		{"https://example.com/p.zip", "#checksum_sha256=<hex>"},
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
	if got := redact("https://s3.example.com/p.zip?X-Amz-Signature=secret"); strings.Contains(got, "secret") {
		t.Errorf("redact kept the query: %s", got)
	}
}
