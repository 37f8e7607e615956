// Package rootfile reads a regular file inside a folder: links may not lead
// out of the folder (an os.Root), a FIFO or device is refused without being
// waited on or read, and the size is the opened file's, capped.
package rootfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular: the name is a folder, FIFO, device or socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooBig: the file is over the caller's cap.
var ErrTooBig = errors.New("over the size cap")

// Read reads the regular file name inside root, of at most max bytes.
// Errors wrap ErrNotRegular, ErrTooBig or the os error (fs.ErrNotExist, or
// the os.Root error of a name or link leading out); none quotes the file.
func Read(root *os.Root, name string, max int64) ([]byte, error) {
	// Stat first: opening a FIFO or a device could block or act on it.
	info, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, kind(info.Mode()))
	}
	// O_NONBLOCK: if a FIFO is swapped in after the Stat, opening it does
	// not wait for a writer; the Stat of the opened file then refuses it.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, kind(info.Mode()))
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, %w of %d", name, info.Size(), ErrTooBig, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1)) // it may grow while read
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes, %w", name, max, ErrTooBig)
	}
	return data, nil
}

// kind names a file type that is not a regular file.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
