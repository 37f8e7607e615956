//go:build linux

package sandbox

import (
	"context"
	"io"
	"testing"
)

// BenchmarkStart compares starting (and reaping) a program through the
// linux runner with a plain exec of the same program (the "none" runner).
// go test -run '^$' -bench BenchmarkStart -benchtime 30x ./sandbox
func BenchmarkStart(b *testing.B) {
	linux, err := NewLinux(nil)
	if err != nil {
		b.Skipf("linux sandbox unavailable: %v", err)
	}
	for _, prog := range []struct {
		name string
		args []string
	}{
		{"python3-c-pass", []string{"python3", "-c", "pass"}},
		{"true", []string{"true"}},
	} {
		for _, r := range []Runner{NewPlain(), linux} {
			b.Run(prog.name+"/"+r.Kind(), func(b *testing.B) {
				args := prog.args
				if r.Kind() == "none" && args[0] == "python3" {
					args = append([]string{linux.python.executable}, args[1:]...) // the same interpreter, no pyenv shim
				}
				for b.Loop() {
					p, err := r.Start(context.Background(), Spec{Args: args})
					if err != nil {
						b.Fatal(err)
					}
					p.Stdin().Close()
					io.Copy(io.Discard, p.Stdout())
					if _, err := p.Wait(); err != nil {
						b.Fatal(err)
					}
					p.Close()
				}
			})
		}
	}
}
