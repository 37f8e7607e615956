package judge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

// SmokeTest builds l's smoke solution (lang.Language.Smoke) and starts it
// as a run would, in runner, until it says ready: what tether doctor
// checks of each language. It returns the compile's stats.
func SmokeTest(ctx context.Context, runner sandbox.Runner, l *lang.Language) (lang.Stats, error) {
	if l.Smoke == "" {
		return lang.Stats{}, errors.New("the language has no smoke solution")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	dir, err := writePythonSDKDir()
	if err != nil {
		return lang.Stats{}, err
	}
	defer os.RemoveAll(dir)
	b := &lang.Builder{Runner: runner, Env: baseEnv("", nil)}
	bd, err := b.Build(ctx, lang.Request{Language: l, Source: []byte(l.Smoke), Limits: l.Effective(lang.CompileLimits{}), MemoryMB: DefaultMemoryLimitMB})
	if err != nil {
		return lang.Stats{}, fmt.Errorf("build: %w", err)
	}
	defer bd.Close()
	p := &Problem{Runtime: RuntimeConfig{Solution: SolutionConfig{MemoryLimitMB: DefaultMemoryLimitMB,
		Processes: ProcessLimits{Pids: DefaultPidsLimit, FileSizeMB: DefaultFileSizeLimitMB, OpenFiles: DefaultOpenFilesLimit}}}}
	proc, err := runner.Start(ctx, solutionSpec(p, bd, dir, nil))
	if err != nil {
		return bd.Stats, fmt.Errorf("start: %w", err)
	}
	defer proc.Close()
	stderr := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(io.LimitReader(proc.Stderr(), 4<<10))
		io.Copy(io.Discard, proc.Stderr())
		stderr <- string(data)
	}()
	stop := context.AfterFunc(ctx, func() { proc.Kill() })
	defer stop()
	line, err := bufio.NewReaderSize(io.LimitReader(proc.Stdout(), 1<<16), 1<<16).ReadString('\n')
	proc.Kill()
	proc.Wait()
	why := strings.TrimSpace(<-stderr)
	if strings.TrimSpace(line) != `{"type":"ready"}` {
		if why == "" {
			why = fmt.Sprint(err)
		}
		return bd.Stats, fmt.Errorf("the solution did not say ready (first line %q): %s", strings.TrimSpace(line), lastLinesOf(why, 3))
	}
	return bd.Stats, nil
}
