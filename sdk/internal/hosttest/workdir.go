package hosttest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// WorkDir is a fresh work dir as the judge prepares one: the host's files
// (writeHost, the SDK's WriteTo) and testdata/name saved as source.
func WorkDir(t testing.TB, writeHost func(dir string) error, name, source string) string {
	t.Helper()
	dir := t.TempDir()
	if err := writeHost(dir); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, source), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WithSource is argv (an SDK's Compile or Run) with the {source} argument
// replaced by source.
func WithSource(argv []string, source string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if a == "{source}" {
			out[i] = source
		}
	}
	return out
}

// Compiled is WorkDir with the source then compiled by compile (an SDK's
// Compile, {source} standing for source), as the judge builds it.
func Compiled(t testing.TB, writeHost func(dir string) error, name, source string, compile []string) string {
	t.Helper()
	dir := WorkDir(t, writeHost, name, source)
	Build(t, dir, nil, WithSource(compile, source)...)
	return dir
}
