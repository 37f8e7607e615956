package supportpkg

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"strings"
)

const (
	schemeNOJ   = "noj-download://"
	checksumKey = "checksum_sha256"
)

// source is a parsed download URL: where the bytes come from and the
// SHA-256 (lower-case hex) they must have, "" when the URL gives none (then
// they are used unchecked, as Neuro OJ's judge does; see Cache.Extract).
type source struct {
	content  string // base64 form: the standard base64 text
	httpsURL string // s3 and https forms: what to GET
	checksum string
	raw      string // the URL as given: what a package without a checksum is known by
}

// parseURL reads the three URL forms of docs/packages.md. The base64 form's
// query is split by hand: url.ParseQuery would turn the '+' of standard
// base64 into a space. Values are percent-decoded as a path is (a '+' stays
// a '+'), as Neuro OJ's judge does, so an encoded content is read too.
func parseURL(raw string) (*source, error) {
	switch {
	case strings.HasPrefix(raw, schemeNOJ):
		return parseNOJ(raw)
	case strings.HasPrefix(strings.ToLower(raw), "https://"):
		return parseHTTPS(raw)
	case raw == "":
		return nil, fail(nil, "download_url is empty")
	default:
		return nil, fail(nil, fmt.Sprintf("download_url %q is none of noj-download://base64/?content=…, noj-download://s3?url=…, https://…", redact(raw)))
	}
}

func parseNOJ(raw string) (*source, error) {
	rest := raw[len(schemeNOJ):]
	host, query := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host = rest[:i]
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			query = rest[q+1:]
		}
	}
	params, err := splitQuery(query)
	if err != nil {
		return nil, err
	}
	sum, err := checksumOf(params[checksumKey], "the "+checksumKey+" parameter")
	if err != nil {
		return nil, err
	}
	src := &source{checksum: sum, raw: raw}
	switch host {
	case "base64":
		content, ok := params["content"]
		if !ok || content == "" {
			return nil, fail(nil, "noj-download://base64 has no content parameter")
		}
		src.content = content
	case "s3":
		u, ok := params["url"]
		if !ok || u == "" {
			return nil, fail(nil, "noj-download://s3 has no url parameter")
		}
		if err := checkHTTPS(u); err != nil {
			return nil, err
		}
		src.httpsURL = u
	case "local":
		return nil, fail(nil, "noj-download://local reads the submitter's own disk and is not accepted; use the base64 or s3 form")
	default:
		return nil, fail(nil, fmt.Sprintf("noj-download://%s is not a known form (base64 or s3)", host))
	}
	return src, nil
}

// parseHTTPS takes the checksum from the fragment, which a client never
// sends: https://host/p.zip#checksum_sha256=<hex>.
func parseHTTPS(raw string) (*source, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fail(err, "download_url is not a valid https URL")
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	params, err := splitQuery(frag)
	if err != nil {
		return nil, err
	}
	sum, err := checksumOf(params[checksumKey], "the URL's #checksum_sha256 fragment")
	if err != nil {
		return nil, err
	}
	if err := checkHTTPS(u.String()); err != nil {
		return nil, err
	}
	return &source{httpsURL: u.String(), checksum: sum, raw: raw}, nil
}

// splitQuery splits k=v&k=v without form decoding; the first of a repeated
// key wins, as in Neuro OJ's judge.
func splitQuery(q string) (map[string]string, error) {
	params := map[string]string{}
	for _, pair := range strings.Split(q, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if _, seen := params[k]; seen {
			continue
		}
		dv, err := url.PathUnescape(v)
		if err != nil {
			return nil, fail(err, fmt.Sprintf("the %s parameter is not valid percent-encoding", k))
		}
		params[k] = dv
	}
	return params, nil
}

// checksumOf checks a checksum given in a URL; "" (none, or empty) stays
// "": the package is then used unchecked.
func checksumOf(v, where string) (string, error) {
	if v == "" {
		return "", nil
	}
	if len(v) != 64 {
		return "", fail(nil, fmt.Sprintf("%s must be 64 hex digits (a SHA-256), got %d characters", where, len(v)))
	}
	if _, err := hex.DecodeString(v); err != nil {
		return "", fail(nil, where+" must be 64 hex digits (a SHA-256)")
	}
	return strings.ToLower(v), nil
}

func checkHTTPS(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fail(err, "the package URL is not valid")
	}
	if u.Scheme != "https" {
		return fail(nil, fmt.Sprintf("the package URL %s is not https: only https downloads are allowed", redact(raw)))
	}
	if u.Host == "" {
		return fail(nil, fmt.Sprintf("the package URL %s has no host", redact(raw)))
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil && !allowedIP(ip) {
		return fail(nil, fmt.Sprintf("the package URL %s names a link-local, multicast or unspecified address (a cloud metadata service?); packages are not fetched from there", redact(raw)))
	}
	return nil
}

// redact drops the user info, query and fragment of a URL for messages and
// logs: a presigned URL's query is a credential. Long text is cut.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		u.User = nil
		if u.RawQuery != "" || u.Fragment != "" {
			u.RawQuery, u.Fragment, u.RawFragment = "…", "", ""
		}
		raw = u.String()
	} else if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i] + "?…"
	}
	if len(raw) > 200 {
		raw = raw[:200] + "…"
	}
	return raw
}
