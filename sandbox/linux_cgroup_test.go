//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/criyle/go-sandbox/pkg/cgroup"
)

// A sandbox cgroup that cannot be made is an error that says which one,
// not a panic in the clean-up of the half-made one (issue 32: on cgroup v2
// makeCgroup returned nil with its error and its deferred clean-up then
// called destroy on that nil). The parent here is a file of the cgroup
// tree's root, under which no directory can be made on either version.
func TestMakeCgroupThatCannotBeMadeIsAnError(t *testing.T) {
	const parent = "cgroup.procs"
	if _, err := os.Stat(filepath.Join(cgroupRoot, parent)); err != nil {
		if _, err := os.Stat(filepath.Join(cgroupRoot, cgroup.Memory, parent)); err != nil {
			t.Skipf("no cgroup tree at %s: %v", cgroupRoot, err)
		}
	}
	l := &cgroupLayout{v2: cgroup.DetectType() == cgroup.TypeV2, v2Base: parent}
	if !l.v2 {
		h := v1Hierarchy{mount: cgroup.Memory, parent: parent}
		h.ct.Set(cgroup.Memory, true)
		l.hier = []v1Hierarchy{h}
	}
	cg, err := l.makeCgroup(ownerTag + "-unmakeable")
	if err == nil || cg != nil {
		t.Fatalf("makeCgroup under %s: got %v, %v; want no cgroup and an error", parent, cg, err)
	}
	if !strings.Contains(err.Error(), ownerTag+"-unmakeable") {
		t.Errorf("error %q does not name the cgroup", err)
	}
}
