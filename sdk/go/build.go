// Package gosdk builds a Go solution offline: WriteTo writes, beside the
// submission's main.go, a go.mod whose one requirement (this module) is
// replaced by a copy of the Go SDK's sources (sdk/go/solution and the
// packages it imports, standard library only). The solution imports
// "github.com/tether-dev/tether/sdk/go/solution" as usual, with no replace
// directive of its own (docs/languages.md, "Go").
package gosdk

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing/fstest"

	tether "github.com/tether-dev/tether"
	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

// Module is the import path of this module; SDKDir the folder WriteTo puts
// its copy in, inside the work dir.
const (
	Module = "github.com/tether-dev/tether"
	SDKDir = "tether_sdk"
)

// Executable is the program Compile makes.
const Executable = "main"

// Compile builds the executable main in the work dir holding main.go and
// what WriteTo wrote, with Env added to the environment: no network, no
// toolchain or module download. Run starts it there.
var (
	Compile = []string{"go", "build", "-trimpath", "-ldflags=-s -w", "-o", Executable, "."}
	Env     = []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "GOWORK=off"}
	Run     = []string{"./" + Executable}
)

// Warm is a program compiled once, before any submission, to fill the
// compiler's cache (GOCACHE) with the SDK and the standard packages
// solutions commonly import, so that a submission's compile builds only
// its own package and links.
const Warm = `package main

import (
	"bufio"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/sdk/go/solution"
)

var (
	_ = bufio.NewReader
	_ = heap.Init
	_ = errors.New
	_ = fmt.Sprint
	_ = math.MaxInt64
	_ = bits.Len
	_ = os.Exit
	_ = regexp.MustCompile
	_ = slices.Sort[[]int]
	_ = sort.Ints
	_ = strconv.Itoa
	_ = strings.Fields
)

func main() {
	solution.Register("add", func(ctx context.Context, args []any) (any, error) {
		return new(big.Int).Add(big.NewInt(args[0].(int64)), big.NewInt(args[1].(int64))), nil
	})
	solution.Serve()
}
`

var goLine = regexp.MustCompile(`(?m)^go (\d+\.\d+)`)

// goVersion is the language version of this module's go.mod ("1.26").
func goVersion() string {
	data, err := fs.ReadFile(tether.GoSDK, "go.mod")
	if err != nil {
		panic("gosdk: embedded go.mod: " + err.Error())
	}
	m := goLine.FindSubmatch(data)
	if m == nil {
		panic("gosdk: embedded go.mod has no go line")
	}
	return string(m[1])
}

// FS is what WriteTo writes: go.mod and SDKDir/... (tests left out).
func FS() fs.FS { return files }

// WriteTo writes go.mod and the SDK's copy into dir (see sdkfs.WriteTo).
func WriteTo(dir string) error { return sdkfs.WriteTo(dir, files, "gosdk") }

// Version names the files' content (for a build cache's key).
var Version = sdkfs.Digest(files)

var files = build()

func build() fstest.MapFS {
	v := goVersion()
	out := fstest.MapFS{
		"go.mod":                    {Data: []byte(fmt.Sprintf("module solution\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => ./%s\n", v, Module, Module, SDKDir))},
		path.Join(SDKDir, "go.mod"): {Data: []byte(fmt.Sprintf("module %s\n\ngo %s\n", Module, v))},
	}
	err := fs.WalkDir(tether.GoSDK, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "go.mod" || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := fs.ReadFile(tether.GoSDK, p)
		out[path.Join(SDKDir, p)] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		panic("gosdk: reading the embedded sources: " + err.Error()) // embed.FS cannot fail
	}
	return out
}
