package supportpkg

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// newClient makes the one HTTP client of a Cache: https only (checked on
// the URL before a request), never a redirect (a redirect could lead to
// plain http or an inner address), no idle connections kept (downloads are
// rare, so nothing lingers after one).
func newClient(roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second, Control: refuseLinkLocal}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		DisableKeepAlives:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// refuseLinkLocal stops a connection to a link-local or unspecified
// address before it is made, whatever name led there: that is where cloud
// metadata services answer (169.254.169.254), and a task's URL must not
// reach them. Loopback and private addresses stay allowed (a local MinIO).
func refuseLinkLocal(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip != nil && !allowedIP(ip) {
		return fmt.Errorf("%s is a link-local, multicast or unspecified address (a cloud metadata service?); packages are not fetched from there", ip)
	}
	return nil
}

func allowedIP(ip net.IP) bool {
	return !(ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified())
}

// fetch writes the package's bytes to w, at most lim bytes, and returns how
// many it wrote. The checksum is the caller's job: it hashes what w sees.
func (c *Cache) fetch(ctx context.Context, src *source, w io.Writer) (int64, error) {
	if src.httpsURL == "" {
		return decodeBase64(src.content, w, c.limits.packageBytes)
	}
	return c.download(ctx, src.httpsURL, w)
}

func decodeBase64(content string, w io.Writer, lim int64) (int64, error) {
	if int64(len(content))/4*3 > lim+3 {
		return 0, fail(nil, fmt.Sprintf("the base64 content decodes to about %d MiB, more than the cap of %d MiB", int64(len(content))/4*3>>20, lim>>20))
	}
	dec := base64.NewDecoder(base64.StdEncoding, strings.NewReader(content))
	n, err := io.Copy(w, io.LimitReader(dec, lim+1))
	if err != nil {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return n, fail(nil, fmt.Sprintf("the content parameter is not standard base64 (bad byte at offset %d; a '+' sent as a space?)", int64(corrupt)))
		}
		return n, fail(err, "writing the decoded package failed")
	}
	if n > lim {
		return n, fail(nil, fmt.Sprintf("the package is more than the cap of %d MiB", lim>>20))
	}
	return n, nil
}

func (c *Cache) download(ctx context.Context, rawURL string, w io.Writer) (int64, error) {
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	where := redact(rawURL)
	timedOut := func(err error) error {
		if ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
			return fail(context.DeadlineExceeded, fmt.Sprintf("download of %s timed out after %s (SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT)", where, c.timeout))
		}
		return err
	}
	req, err := http.NewRequestWithContext(dctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, fail(err, "the package URL "+where+" is not valid")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, timedOut(fail(unwrapURLError(err), "download of "+where+" failed"))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return 0, fail(nil, fmt.Sprintf("download of %s answered a redirect (HTTP %d to %s); redirects are not followed", where, resp.StatusCode, redact(resp.Header.Get("Location"))))
	case resp.StatusCode != http.StatusOK:
		return 0, fail(nil, fmt.Sprintf("download of %s answered HTTP %d %s", where, resp.StatusCode, http.StatusText(resp.StatusCode)))
	}
	lim := c.limits.packageBytes
	if resp.ContentLength > lim {
		return 0, fail(nil, fmt.Sprintf("download of %s is %d MiB, more than the cap of %d MiB", where, resp.ContentLength>>20, lim>>20))
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, lim+1))
	if err == nil && dctx.Err() != nil {
		// The body may end cleanly just as the deadline cancels the
		// request (a server that gives up then): it is not a whole package.
		err = dctx.Err()
	}
	if err != nil {
		return n, timedOut(fail(err, fmt.Sprintf("download of %s broke off after %d bytes", where, n)))
	}
	if n > lim {
		return n, fail(nil, fmt.Sprintf("download of %s is more than the cap of %d MiB", where, lim>>20))
	}
	return n, nil
}

// unwrapURLError drops *url.Error's "Get <url>:" prefix, which would print
// the presigned query we keep out of messages.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
