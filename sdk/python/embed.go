// Package pysdk carries the Python SDK (tether_sdk, noj_evaluator_sdk,
// noj_solution_sdk) inside the tether binary, so the judge can put it on
// the PYTHONPATH of both sandboxes without any installation step.
//
// The embedded files are the packages' .py sources only: no tests, no
// __pycache__. Everything here is read-only and safe for concurrent use.
package pysdk

import (
	"embed"
	"io/fs"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

// Every .py file of the three packages. Explicit patterns (not directory
// names) so that __init__.py and _private.py files are included while
// __pycache__ and tests/ are not. A new subpackage needs a pattern here.
//
//go:embed tether_sdk/*.py tether_sdk/evaluator/*.py tether_sdk/solution/*.py
//go:embed noj_evaluator_sdk/*.py noj_solution_sdk/*.py
var files embed.FS

// Packages are the top-level Python packages WriteTo writes.
var Packages = []string{"tether_sdk", "noj_evaluator_sdk", "noj_solution_sdk"}

// FS returns the embedded packages, rooted so that "tether_sdk/__init__.py"
// is a path in it.
func FS() fs.FS { return files }

// WriteTo writes the packages into dir (created if missing), ready to be
// named in PYTHONPATH. Existing files of the same names are overwritten;
// nothing else in dir is touched. Files are 0644, directories 0755, and dir
// itself is made readable and searchable by everyone (mode |= 0755): a
// sandboxed Python running as another user must be able to import from it,
// and os.MkdirTemp creates 0700 directories.
func WriteTo(dir string) error { return sdkfs.WriteTo(dir, files, "pysdk") }
