package pipeio

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/wire"
)

// netpollFDs is the set of descriptors the Go runtime's epoll instance
// watches, read from /proc/self/fdinfo of every eventpoll descriptor.
func netpollFDs(t *testing.T) map[int]bool {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	watched := map[int]bool{}
	found := false
	for _, e := range ents {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || link != "anon_inode:[eventpoll]" {
			continue
		}
		found = true
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(info), "\n") {
			fields := strings.Fields(line)
			if len(fields) >= 2 && fields[0] == "tfd:" {
				fd, err := strconv.Atoi(fields[1])
				if err != nil {
					t.Fatalf("fdinfo line %q: %v", line, err)
				}
				watched[fd] = true
			}
		}
	}
	if !found {
		t.Fatal("no eventpoll descriptor: the runtime's netpoller is not running")
	}
	return watched
}

func TestUnpolledLeavesTheNetpoller(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before := int(mustFD(t, r))
	if !netpollFDs(t)[before] {
		t.Fatalf("os.Pipe's read end %d is not watched by the netpoller to begin with", before)
	}

	after, err := Unpolled(r)
	if err != nil {
		t.Fatalf("Unpolled failed on an os.Pipe: %v", err)
	}
	defer syscall.Close(after)
	if watched := netpollFDs(t); watched[after] || watched[before] {
		t.Fatalf("still watched after Unpolled: old fd %d %v, new fd %d %v", before, watched[before], after, watched[after])
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("the original file after Unpolled: Read gave %v, want os.ErrClosed", err)
	}
	buf := make([]byte, 16)
	if _, err := Read(after, buf); err != wire.ErrWouldBlock {
		t.Fatalf("reading an empty pipe: %v, want ErrWouldBlock (the duplicate is non-blocking)", err)
	}
	if _, err := w.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := Read(after, buf); err != nil || string(buf[:n]) != "line\n" {
		t.Fatalf("read %q, %v; want the line written to the pipe", buf[:n], err)
	}
	w.Close()
	if n, err := Read(after, buf); n != 0 || err != io.EOF {
		t.Fatalf("after the writer closed: %d bytes, %v; want EOF", n, err)
	}
}

// mustFD is f's descriptor, without Fd (which would make it blocking).
func mustFD(t *testing.T, f *os.File) uintptr {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd uintptr
	if err := rc.Control(func(d uintptr) { fd = d }); err != nil {
		t.Fatal(err)
	}
	return fd
}
