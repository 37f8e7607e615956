package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
)

// stalled gives its bytes, then reports that nothing more comes.
type stalled struct{ r io.Reader }

var errStalled = errors.New("stalled")

func (s *stalled) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		return n, errStalled
	}
	return n, err
}

// A declared length costs nothing until its bytes arrive (issue 17, item 5:
// FrameReader allocated a declared 64 MiB as soon as the header came).
func TestFrameReaderGrowsAsBytesArrive(t *testing.T) {
	stream := binary.BigEndian.AppendUint32(nil, DefaultMaxFrame)
	stream = append(stream, bytes.Repeat([]byte("x"), 1000)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fr := NewFrameReader(&stalled{bytes.NewReader(stream)}, 0)
	if _, err := fr.ReadFrame(); !errors.Is(err, errStalled) {
		t.Fatalf("ReadFrame = %v, want the source's error", err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("a 64 MiB header with 1000 bytes behind it allocated %d bytes", got)
	}
}

// Past the pool's cap the slowest connection is evicted: another one
// (its evict function runs) or the one asking (its read fails).
func TestPoolEvictsTheSlowest(t *testing.T) {
	pool := NewPool(300 << 10)
	evicted := 0
	slow := pool.Hold(func() { evicted++ })
	if err := slow.Grow(200 << 10); err != nil {
		t.Fatal(err)
	}
	slow.since = slow.since.Add(-10e9) // began 10 s ago: slower than any new message
	fast := pool.Hold(func() { t.Error("the faster connection was evicted") })
	if err := fast.Grow(200 << 10); err != nil {
		t.Fatalf("growing the faster hold: %v", err)
	}
	if evicted != 1 || pool.Used() != 200<<10 {
		t.Fatalf("evicted %d, used %d; want the slow one gone", evicted, pool.Used())
	}
	if err := slow.Grow(1); !errors.Is(err, ErrEvicted) {
		t.Errorf("an evicted hold grew: %v", err)
	}
	fast.Release(200 << 10)
	fast.Close()
	if pool.Used() != 0 {
		t.Errorf("used %d after everything was given back", pool.Used())
	}
	if err := pool.Hold(nil).Grow(400 << 10); !errors.Is(err, ErrEvicted) {
		t.Errorf("a hold over the whole pool: %v", err)
	}
}

// Readers charge their buffers to the hold and give long ones back.
func TestReadersChargeTheirHold(t *testing.T) {
	pool := NewPool(1 << 30)
	var stream []byte
	stream = binary.BigEndian.AppendUint32(stream, 1<<20)
	stream = append(stream, bytes.Repeat([]byte("y"), 1<<20)...)
	stream = binary.BigEndian.AppendUint32(stream, 2)
	stream = append(stream, "ok"...)
	lines := append(bytes.Repeat([]byte("z"), 1<<20), "\nok\n"...)
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	lr := NewLineReader(bytes.NewReader(lines), 0)
	for _, r := range []struct {
		name    string
		setHold func(*Hold)
		read    func() ([]byte, error)
		kept    int // the buffer kept after a long frame
	}{
		{"frame", fr.SetHold, fr.ReadFrame, keepReadBuffer},
		{"line", lr.SetHold, lr.ReadLine, initialBuffer},
	} {
		h := pool.Hold(func() {})
		r.setHold(h)
		if got, err := r.read(); err != nil || len(got) != 1<<20 || pool.Used() < 1<<20 {
			t.Fatalf("long %s: %d bytes, %v; pool holds %d", r.name, len(got), err, pool.Used())
		}
		if got, err := r.read(); err != nil || string(got) != "ok" || pool.Used() > int64(r.kept) {
			t.Fatalf("after the long %s: %q, %v; pool holds %d", r.name, got, err, pool.Used())
		}
		h.Close()
	}
	small := NewPool(100 << 10)
	lr = NewLineReader(bytes.NewReader(lines), 0)
	lr.SetHold(small.Hold(func() {}))
	if _, err := lr.ReadLine(); !errors.Is(err, ErrEvicted) {
		t.Errorf("a line over the pool: %v, want ErrEvicted", err)
	}
}
