// Package copyfile copies a file to a new one.
package copyfile

import (
	"io"
	"os"
)

// ToNew copies the file src to dst, which it creates with mode perm (less
// the umask); it fails, writing nothing, when dst exists (O_EXCL: a link
// planted there is not followed).
func ToNew(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
