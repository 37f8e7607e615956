package dual

import (
	"bytes"
	"testing"
	"time"
)

// checkTable verifies the in-flight table's invariants.
func checkTable(t *testing.T, tb *table) {
	t.Helper()
	used := [2]int{}
	for i := range tb.slots {
		e := &tb.slots[i]
		if !e.used {
			continue
		}
		used[e.dir]++
		if tb.find(e.dir, e.id) != int32(i) {
			t.Fatalf("entry %d (%q) not found by its key", i, e.id)
		}
		if int(e.heapIdx) >= len(tb.heap) || tb.heap[e.heapIdx] != int32(i) {
			t.Fatalf("entry %d heap index %d broken", i, e.heapIdx)
		}
	}
	if counted := [2]int{tb.count(0), tb.count(1)}; used != counted || used[0]+used[1] != len(tb.heap) {
		t.Fatalf("counts %v, table says %v, heap %d", used, counted, len(tb.heap))
	}
	for j := 1; j < len(tb.heap); j++ {
		if (byDeadline{tb}).Less(j, (j-1)/2) {
			t.Fatalf("heap order broken at %d", j)
		}
	}
}

// FuzzEngine feeds random lines to both sides between clock steps, process
// deaths and restarts: the engine must never panic, its table must stay
// consistent, and every frame it sends must be a valid frame.
func FuzzEngine(f *testing.F) {
	f.Add([]byte("s{\"type\":\"ready\"}\ne{\"type\":\"call\",\"id\":\"a\",\"fn\":\"f\",\"timeout_ms\":5}\nt\ns{\"type\":\"result\",\"id\":\"a\"}\n"))
	f.Add([]byte("e{\"type\":\"call\",\"id\":\"a\"}\ns{\"type\":\"ready\"}\ne{\"type\":\"call\",\"id\":\"a\"}\ngs\ne{\"type\":\"call\",\"id\":\"b\"}\nr\ns{\"type\":\"ready\"}\n"))
	f.Add([]byte("s{\"type\":\"ready\"}\ns{\"type\":\"capability\",\"id\":\"c\",\"name\":\"n\"}\ne{\"type\":\"cap_reg\",\"name\":\"n\",\"timeout_ms\":1}\nt\nge\ne---RESULT---\neok\n"))
	f.Add([]byte("s{\"type\":\"ready\"}\ns{\"type\":\"log\",\"stream\":\"stdout\",\"data\":\"x\"}\nl{\"type\":\"call\",\"id\":\"z\"\n"))
	f.Fuzz(func(t *testing.T, script []byte) {
		e := newEngine(Config{CallTimeout: 3 * time.Millisecond, MaxInFlight: 8, MaxLogPerCall: 4, MaxLogPerRun: 16, ReadyTimeout: 20 * time.Millisecond})
		now := t0
		out := e.SolutionStarted(now, nil)
		for _, op := range bytes.Split(script, []byte("\n")) {
			if len(op) == 0 {
				continue
			}
			arg := op[1:]
			out = out[:0]
			switch op[0] {
			case 'e':
				out = e.Line(Evaluator, arg, now, out)
			case 's':
				out = e.Line(Solution, arg, now, out)
			case 't':
				now = now.Add(time.Duration(len(arg)+1) * time.Millisecond)
				out = e.Expire(now, out)
			case 'g':
				side := Solution
				if len(arg) > 0 && arg[0] == 'e' {
					side = Evaluator
				}
				out = e.Gone(side, string(arg), now, out)
			case 'r':
				out = e.SolutionStarted(now, out)
			case 'l':
				out = e.LineTooLong(Solution, 5<<20, arg, now, out)
			default:
				out = e.Line(Evaluator, op, now, out)
			}
			for _, a := range out {
				if a.Kind == actSend {
					var fr Frame
					if k, _ := Classify(a.Frame, &fr); k != Framed {
						t.Fatalf("engine sent a non-frame %q", a.Frame)
					}
				}
			}
			checkTable(t, e.t)
			if d, ok := e.NextDeadline(); ok && d.Before(now) {
				if acts := e.Expire(now, nil); len(acts) == 0 {
					t.Fatalf("deadline %v before now %v but nothing expired", d, now)
				}
			}
		}
	})
}
