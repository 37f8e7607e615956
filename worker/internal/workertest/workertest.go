// Package workertest holds what the worker's tests share.
package workertest

import (
	"context"
	"os"
	"path/filepath"
)

// CopyFolder stands in for the support package cache (worker.Judger's
// Packages): Extract copies the files of the folder, not its subfolders
// (submissions/ is no part of what an evaluator needs), whatever the URL.
type CopyFolder string

func (c CopyFolder) Extract(_ context.Context, _ string, dest string) error {
	entries, err := os.ReadDir(string(c))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(string(c), e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dest, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
