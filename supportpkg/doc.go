// Package supportpkg reads and writes problem support packages: the zip a
// judge task names in its download_url, unpacked as the evaluator's
// /workspace. The format and the URL forms are Neuro OJ's (docs/packages.md):
//
//	noj-download://base64/?content=<standard base64>&checksum_sha256=<hex>
//	noj-download://s3?url=<percent-encoded https URL>&checksum_sha256=<hex>
//	https://host/path.zip#checksum_sha256=<hex>
//
// A Cache fetches a package once per checksum, keeps it on disk (LRU by count
// and size), re-checks its SHA-256 on every use and unpacks it safely. The
// checksum is optional, as in Neuro OJ: a package without one is fetched on
// each use and never cached (EventUnchecked). Pack
// writes a problem folder as such a package; Extract reads what Pack writes.
//
// Everything in a package or a URL is hostile: sizes, entry counts, names
// and modes are bounded and checked before anything reaches the disk.
package supportpkg

import "errors"

// ErrPackage is wrapped by every error about a package that cannot be had:
// a bad URL, a failed or oversize download, a checksum mismatch, an unsafe
// or oversize zip. A worker turns such an error into a SystemError result.
var ErrPackage = errors.New("support package")

// Caps, as Neuro OJ's judge has them: a package (the zip) is at most
// MaxPackageBytes; unpacked, at most maxEntries entries, maxFileBytes per
// file and maxTotalBytes in all.
const (
	MaxPackageBytes = 128 << 20
	maxEntries      = 1000
	maxRecords      = 100 * maxEntries
	maxFileBytes    = 64 << 20
	maxTotalBytes   = 512 << 20
)

// limits are the caps one Cache applies; tests shrink them to build small
// bombs, users never see them.
type limits struct {
	packageBytes int64
	entries      int
	records      int // central directory signatures counted before archive/zip reads them
	fileBytes    int64
	totalBytes   int64
}

var defaultLimits = limits{
	packageBytes: MaxPackageBytes,
	entries:      maxEntries,
	records:      maxRecords,
	fileBytes:    maxFileBytes,
	totalBytes:   maxTotalBytes,
}

// packageError says in words why a package cannot be had, and wraps both
// ErrPackage and the cause (a context error stays visible to errors.Is).
type packageError struct {
	msg   string
	cause error
}

func (e *packageError) Error() string {
	if e.cause != nil {
		return "support package: " + e.msg + ": " + e.cause.Error()
	}
	return "support package: " + e.msg
}

func (e *packageError) Unwrap() []error {
	if e.cause != nil {
		return []error{ErrPackage, e.cause}
	}
	return []error{ErrPackage}
}

func fail(cause error, msg string) error { return &packageError{msg: msg, cause: cause} }
