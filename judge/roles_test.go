package judge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/relaybench"
	"github.com/tether-dev/tether/sdk/go/evaluator"
	"github.com/tether-dev/tether/sdk/go/solution"
)

// playSide runs the scripted side named by the environment and returns the
// exit code. Evaluator scripts check what they saw themselves and report
// it in their result's details, so the test reads one Result.
func playSide(which string) int {
	var roles map[string]func() int
	name := os.Getenv("TETHER_TEST_SOL")
	if which == "evaluator" {
		roles, name = evaluatorRoles, os.Getenv("TETHER_TEST_EVAL")
	} else {
		roles = solutionRoles
	}
	f, ok := roles[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "no %s role %q\n", which, name)
		return 99
	}
	return f()
}

var bg = context.Background()

// lockedStdout lets raw writes and the SDK share stdout without splitting lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var stdout = &lockedWriter{w: os.Stdout}

func raw(line string) { fmt.Fprintln(stdout, line) }

func report(r *evaluator.Runner, d map[string]any, err error) int {
	if err != nil {
		r.WrongAnswer(0, map[string]any{"error": err.Error()})
		return 0
	}
	r.Accept(100, d)
	return 0
}

// rawReader reads the evaluator's stdin line by line, as raw frames.
type rawReader struct{ sc *bufio.Scanner }

func newRawReader() *rawReader {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	return &rawReader{sc: sc}
}

func (r *rawReader) next() (string, map[string]any) {
	if !r.sc.Scan() {
		return "", nil
	}
	var m map[string]any
	json.Unmarshal(r.sc.Bytes(), &m)
	return r.sc.Text(), m
}

// rawSolution is a solution host written on the raw protocol: ready, then
// answer for each frame from the judge until stdin ends.
func rawSolution(answer func(m map[string]any)) int {
	raw(`{"type":"ready"}`)
	in := newRawReader()
	for {
		_, m := in.next()
		if m == nil {
			return 0
		}
		answer(m)
	}
}

func rawResult(status string, details map[string]any) {
	b, _ := json.Marshal(map[string]any{"status": status, "score": 10000, "details": details})
	raw("---RESULT---")
	raw(string(b))
}

var evaluatorRoles = map[string]func() int{
	"add": func() int {
		r := evaluator.Default()
		v, err := r.Call(bg, "add", 2, 3)
		if err != nil || v != int64(5) {
			r.WrongAnswer(0, map[string]any{"got": fmt.Sprint(v, err)})
			return 0
		}
		fmt.Println("case 1 ok")
		fmt.Fprintln(os.Stderr, "evaluator log line")
		r.Accept(100, map[string]any{"sum": v})
		return 0
	},
	"runtime-error": func() int {
		evaluator.Default().RuntimeError("the solution crashed on case 3")
		return 0
	},
	"score-high":  func() int { raw("---RESULT---"); raw(`{"status":"Accepted","score":123456,"details":{}}`); return 0 },
	"score-low":   func() int { raw("---RESULT---"); raw(`{"status":"WrongAnswer","score":-5}`); return 0 },
	"bad-payload": func() int { raw("---RESULT---"); raw(`this is not json`); return 0 },
	"bad-status":  func() int { raw("---RESULT---"); raw(`{"status":"Not great","score":1}`); return 0 },
	"own-status": func() int {
		raw("---RESULT---")
		raw(`{"status":"PartiallyAccepted","score":5000,"details":{"passed":3}}`)
		return 0
	},
	"split-result": func() int {
		os.Stdout.WriteString("before\n---RES")
		time.Sleep(50 * time.Millisecond)
		os.Stdout.WriteString("ULT---\n\n   \n")
		time.Sleep(50 * time.Millisecond)
		os.Stdout.WriteString(`{"status":"PartiallyCorrect","score":4200,`)
		time.Sleep(50 * time.Millisecond)
		os.Stdout.WriteString(`"details":{"n":1}}`) // no newline, then exit
		return 0
	},
	"no-result":   func() int { fmt.Println("I forgot the result"); return 0 },
	"silent":      func() int { time.Sleep(time.Minute); return 0 },
	"silent-exit": func() int { return 3 },
	"slow":        func() int { fmt.Println("started"); time.Sleep(time.Minute); return 0 },
	"printed": func() int {
		for _, line := range []string{"  two spaces", "\ttab", "trailing  ", " "} {
			raw(line)
		}
		raw(codec.SignedResultMarker(os.Getenv(codec.ResultNonceEnv)))
		raw(`{"status":"Accepted","score":10000}`)
		return 0
	},
	"slow-call": func() int {
		fmt.Println("started")
		raw(`{"type":"call","id":"h1","fn":"hang","args":[],"timeout_ms":60000}`)
		time.Sleep(time.Minute)
		return 0
	},
	"timeout-exact": func() int {
		raw(`{"type":"call","id":"t1","fn":"hang","args":[],"timeout_ms":100}`)
		in := newRawReader()
		line, _ := in.next()
		want := `{"type":"error","id":"t1","code":"CallTimeout","message":"call timeout"}`
		if line != want {
			fmt.Fprintf(os.Stderr, "got %s\n", line)
		}
		fmt.Println("exact:", line == want)
		return 0 // no result: TLE because a CallTimeout was sent
	},
	"restart": func() int {
		r := evaluator.Default()
		pid1, err1 := r.Call(bg, "pid")
		_, errT := r.CallWithTimeout(bg, 100*time.Millisecond, "hang")
		pid2, err2 := r.Call(bg, "pid")
		if err := errors.Join(err1, err2); err != nil {
			return report(r, nil, err)
		}
		var ce *evaluator.CallError
		errors.As(errT, &ce)
		return report(r, map[string]any{"timeout": errors.Is(errT, evaluator.ErrCallTimeout),
			"message": ce.Message, "same_pid": pid1 == pid2}, nil)
	},
	"capability": func() int {
		r := evaluator.Default()
		r.RegisterCapability("fast", func(ctx context.Context, args []any) (any, error) {
			return "echo:" + args[0].(string), nil
		}, 0)
		r.RegisterCapability("slow", func(ctx context.Context, args []any) (any, error) {
			time.Sleep(time.Second)
			return "too late", nil
		}, 100*time.Millisecond)
		v, err := r.Call(bg, "use_caps")
		return report(r, map[string]any{"value": v}, err)
	},
	"forged": func() int {
		raw(`{"type":"call","id":"c1","fn":"x","args":[]}`)
		in := newRawReader()
		first, _ := in.next()
		raw(`{"type":"call","id":"c2","fn":"x","args":[]}`)
		second, _ := in.next()
		// a result for a call the evaluator "made" but from the evaluator itself
		raw(`{"type":"result","id":"c3","value":1}`)
		rawResult("Accepted", map[string]any{"first": first, "second": second})
		return 0
	},
	"duplicate": func() int {
		raw(`{"type":"call","id":"d","fn":"hang","args":[]}`)
		raw(`{"type":"call","id":"d","fn":"hang","args":[]}`)
		in := newRawReader()
		line, _ := in.next()
		rawResult("Accepted", map[string]any{"line": line})
		return 0
	},
	"oversize": func() int {
		in := newRawReader()
		raw(`{"type":"call","id":"big-arg","fn":"x","args":["` + strings.Repeat("a", 1<<20) + `"]}`)
		l1, m1 := in.next()
		raw(`{"type":"call","id":"big-ret","fn":"big","args":[]}`)
		_, m2 := in.next()
		_ = l1
		rawResult("Accepted", map[string]any{"arg": m1, "ret": m2})
		return 0
	},
	"output-flood": func() int {
		w := bufio.NewWriter(os.Stdout)
		line := strings.Repeat("é", 100) // 200 bytes, two per character
		for i := range 15000 {           // ~3 MiB
			fmt.Fprintf(w, "%s\n", line)
			if i%1000 == 0 {
				fmt.Fprintf(w, `{"type":"cap_reg","name":"n%d"}`+"\n", i)
			}
		}
		fmt.Fprintln(w, "LAST LINE")
		w.Flush()
		os.Stderr.WriteString(strings.Repeat("x", 2<<20) + "END")
		rawResult("Accepted", nil)
		return 0
	},
	"logs": func() int {
		var got int
		var mu sync.Mutex
		r2 := evaluator.New(os.Stdin, stdout, &evaluator.Options{Log: func(s, d string) { mu.Lock(); got += len(d); mu.Unlock() }})
		_, err := r2.Call(bg, "chatty", 200)
		mu.Lock()
		defer mu.Unlock()
		return report(r2, map[string]any{"forwarded": got}, err)
	},
	"garbage-then-call": func() int {
		r := evaluator.Default()
		raw(`{"type":"call","id":`) // broken JSON
		raw(`{"type":"nonsense","id":"q"}`)
		raw(`{"type":"result","id":"nobody","value":1}`)
		raw(`{"type":"log","stream":"stdout","data":"evaluator log is dropped"}`)
		v, err := r.CallWithTimeout(bg, 60*time.Second, "flood")
		if err != nil {
			return report(r, nil, err)
		}
		v2, err := r.Call(bg, "add", 1, 1)
		return report(r, map[string]any{"flood": v, "add": v2}, err)
	},
	"die-mid-call": func() int {
		r := evaluator.Default()
		_, err := r.Call(bg, "die")
		var ce *evaluator.CallError
		errors.As(err, &ce)
		v, err2 := r.Call(bg, "add", 20, 22)
		return report(r, map[string]any{"system": errors.Is(err, evaluator.ErrSystem), "message": ce.Message, "after": v}, err2)
	},
	"call-deaf": func() int {
		r := evaluator.Default()
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[string]int{}
		arg := strings.Repeat("z", 10000)
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := r.CallWithTimeout(bg, 30*time.Second, "add", arg)
				var ce *evaluator.CallError
				code := "other"
				if errors.As(err, &ce) {
					code = ce.Code
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		return report(r, map[string]any{"codes": codes}, nil)
	},
	"deaf": func() int {
		for i := range 100000 {
			fmt.Fprintf(stdout, `{"type":"call","id":"x%d","fn":"add","args":[1,2]}`+"\n", i)
		}
		time.Sleep(time.Minute)
		return 0
	},
}

func host() *solution.Host { return solution.New(os.Stdin, stdout, nil) }

func serve(h *solution.Host) int {
	h.Register("add", relaybench.Add)
	h.Register("pid", func(ctx context.Context, args []any) (any, error) { return os.Getpid(), nil })
	h.Register("hang", func(ctx context.Context, args []any) (any, error) { time.Sleep(time.Minute); return nil, nil })
	if err := h.Serve(bg); err != nil {
		return 1
	}
	return 0
}

var solutionRoles = map[string]func() int{
	"basic":       func() int { return serve(host()) },
	"never-ready": func() int { time.Sleep(time.Minute); return 0 },
	"caps": func() int {
		h := host()
		h.Register("use_caps", func(ctx context.Context, args []any) (any, error) {
			v, err := h.CallCapability(ctx, "fast", "hi")
			if err != nil {
				return nil, err
			}
			_, err = h.CallCapability(ctx, "slow")
			var ce *solution.CapabilityError
			if !errors.Is(err, solution.ErrCapabilityTimeout) || !errors.As(err, &ce) {
				return nil, fmt.Errorf("slow capability: %v", err)
			}
			_, err = h.CallCapability(ctx, "missing")
			if !errors.Is(err, solution.ErrCapabilityNotFound) {
				return nil, fmt.Errorf("missing capability: %v", err)
			}
			return []any{v, ce.Code, ce.Message}, nil
		})
		return serve(h)
	},
	"forger": func() int {
		return rawSolution(func(m map[string]any) {
			id, _ := m["id"].(string)
			// One write: the relay routes every line of one read before it
			// forwards any, so the duplicate is counted before the answer can
			// let the evaluator finish (four writes raced the evaluator's result).
			raw(`{"type":"result","id":"forged","value":"forged"}` + "\n" +
				`{"type":"call","id":"evil","fn":"x","args":[]}` + "\n" +
				fmt.Sprintf(`{"type":"result","id":%q,"value":%q}`, id, "answer-"+id) + "\n" +
				fmt.Sprintf(`{"type":"result","id":%q,"value":"duplicate"}`, id))
		})
	},
	"big": func() int {
		return rawSolution(func(m map[string]any) {
			raw(fmt.Sprintf(`{"type":"result","id":%q,"value":%q}`, m["id"], strings.Repeat("b", 2<<20)))
		})
	},
	"chatty": func() int {
		h := host()
		h.Register("chatty", func(ctx context.Context, args []any) (any, error) {
			for range int(args[0].(int64)) {
				h.Log("stdout", strings.Repeat("l", 1023)+"\n")
			}
			return nil, nil
		})
		return serve(h)
	},
	"flooder": func() int {
		h := host()
		size := int64(64 << 20)
		if s := os.Getenv("TETHER_TEST_FLOOD"); s != "" {
			fmt.Sscan(s, &size)
		}
		h.Register("flood", func(ctx context.Context, args []any) (any, error) {
			stdout.mu.Lock()
			defer stdout.mu.Unlock()
			w := bufio.NewWriterSize(os.Stdout, 1<<20)
			chunk := []byte(strings.Repeat("flood text without newline ", 1000))
			for n := 0; n < 100<<20; n += len(chunk) { // one 100 MiB line
				w.Write(chunk)
			}
			w.WriteString("\n{\"type\":\"bogus\"}\nnot json {\n")
			text := []byte(strings.Repeat("plain text line\n", 4096))
			for n := int64(0); n < size; n += int64(len(text)) {
				w.Write(text)
			}
			w.Flush()
			return "flooded", nil
		})
		return serve(h)
	},
	"dier": func() int {
		h := host()
		h.Register("die", func(ctx context.Context, args []any) (any, error) { os.Exit(3); return nil, nil })
		return serve(h)
	},
	"deaf": func() int {
		raw(`{"type":"ready"}`)
		time.Sleep(time.Minute)
		return 0
	},
	"exit-3": func() int { // ends on its first call
		raw(`{"type":"ready"}`)
		newRawReader().next()
		return 3
	},
	"self-kill": func() int { // SIGKILLs itself on its first call
		raw(`{"type":"ready"}`)
		if _, m := newRawReader().next(); m == nil {
			return 0
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
		return 0
	},
}
