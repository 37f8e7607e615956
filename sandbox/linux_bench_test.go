//go:build linux

package sandbox

import (
	"context"
	"io"
	"testing"
)

// BenchmarkStart measures one whole sandbox life — Start, EOF on stdin,
// drain stdout, Wait, Close — of the same program through the "none"
// runner (a plain exec in its own process group) and the "linux" runner
// (with the shared network namespace where the kernel allows it, and with
// SeparateNetworks, a new one per start). "python3" is the interpreter
// behind the judge's PATH entry in both runners (logged below): neither
// runs a pyenv shim. python3-via-shim/none is what the plain runner paid
// per start before it resolved the shim once.
//
// go test -run '^$' -bench BenchmarkStart -benchtime 20x -benchmem ./sandbox
func BenchmarkStart(b *testing.B) {
	linux, err := NewLinux(nil)
	if err != nil {
		b.Skipf("linux sandbox unavailable: %v", err)
	}
	defer linux.Close()
	separate, err := NewLinux(&LinuxOptions{SeparateNetworks: true})
	if err != nil {
		b.Fatal(err)
	}
	defer separate.Close()
	py := sharedHostPython()
	if py == nil {
		b.Skip("no python3 on the host PATH")
	}
	b.Logf("python3 = %s (PATH gives %s); shared network namespace: %v", py.executable, py.onPath["python3"], linux.sharedNet != nil)
	runners := []struct {
		name string
		r    Runner
	}{{"none", NewPlain()}, {"linux", linux}, {"linux-separate-net", separate}}
	for _, prog := range []struct {
		name string
		args []string
	}{
		{"true", []string{"true"}},
		{"python3-c-pass", []string{"python3", "-c", "pass"}},
	} {
		for _, r := range runners {
			b.Run(prog.name+"/"+r.name, func(b *testing.B) { benchLife(b, r.r, prog.args) })
		}
	}
	b.Run("python3-via-shim/none", func(b *testing.B) {
		benchLife(b, NewPlain(), []string{py.onPath["python3"], "-c", "pass"})
	})
}

func benchLife(b *testing.B, r Runner, args []string) {
	for b.Loop() {
		p, err := r.Start(context.Background(), Spec{Args: args})
		if err != nil {
			b.Fatal(err)
		}
		p.Stdin().Close()
		io.Copy(io.Discard, p.Stdout())
		u, err := p.Wait()
		if err != nil || u.ExitCode != 0 {
			b.Fatalf("%v: usage %+v, err %v", args, u, err)
		}
		p.Close()
	}
}
