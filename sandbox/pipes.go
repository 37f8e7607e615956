package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// stdPipes are a sandboxed program's stdin, stdout and stderr, shared by
// every runner's process: the parent's ends, which the caller owns until
// Close, and the child's, which the parent closes once the child has them.
type stdPipes struct {
	stdin                                *os.File
	stdout, stderr                       *os.File
	childStdin, childStdout, childStderr *os.File
}

func (p *stdPipes) makePipes() error {
	var err error
	if p.childStdin, p.stdin, err = os.Pipe(); err != nil {
		return fmt.Errorf("stdin pipe: %w", err)
	}
	if p.stdout, p.childStdout, err = os.Pipe(); err != nil {
		return fmt.Errorf("stdout pipe: %w", err)
	}
	if p.stderr, p.childStderr, err = os.Pipe(); err != nil {
		return fmt.Errorf("stderr pipe: %w", err)
	}
	return nil
}

func (p *stdPipes) closeChildEnds() {
	closeFiles(p.childStdin, p.childStdout, p.childStderr)
}

// closeParentEnds unblocks any reader.
func (p *stdPipes) closeParentEnds() error {
	return closeFiles(p.stdin, p.stdout, p.stderr)
}

// closeFiles closes files, skipping nil ones, and joins the errors other
// than one already closed.
func closeFiles(files ...*os.File) error {
	var errs []error
	for _, f := range files {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Stdin implements Process.
func (p *stdPipes) Stdin() io.WriteCloser { return p.stdin }

// Stdout implements Process.
func (p *stdPipes) Stdout() io.Reader { return p.stdout }

// Stderr implements Process.
func (p *stdPipes) Stderr() io.Reader { return p.stderr }
