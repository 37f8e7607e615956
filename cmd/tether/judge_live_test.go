package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A judge whose stderr is the null device or a file (a script's) shows no
// live line, and so tells the run's relay of no call at all.
func TestLiveLineOnlyOnATerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, f := range []*os.File{null, file} {
		stop, live := startLiveLine(f)
		stop()
		if live != nil {
			t.Errorf("stderr %s: the run counts calls for a live line nobody sees", f.Name())
		}
	}
}
