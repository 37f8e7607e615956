package redisq

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"

	"github.com/tether-dev/tether/worker"
)

// fallbackDir holds results Redis would not take, in
// WORK_DIR/fallback-results (mode 0700), one file each (mode 0600):
// {"mac": "<hex>", "kept": {"result": …, "task": "<the task as queued>"}}.
// mac is HMAC-SHA256 of kept's bytes under keyName, a key made with the
// folder: only a file written by a worker of this WORK_DIR is replayed, so
// a result planted by anyone else (another local user, another program)
// never reaches the result list.
type fallbackDir struct {
	dir       string
	key       []byte
	maxFile   int64 // the largest kept file read back
	log       *slog.Logger
	onPending func(int)
	mu        sync.Mutex // one replay at a time
}

type keptFile struct {
	MAC  string          `json:"mac"`
	Kept json.RawMessage `json:"kept"`
}

type keptResult struct {
	Result json.RawMessage `json:"result"`
	Task   *string         `json:"task,omitempty"`
}

// keyName is the file of the HMAC key in fallback-results.
const keyName = "key"

func openFallback(workDir string, maxTask int, log *slog.Logger, onPending func(int)) (*fallbackDir, error) {
	if err := worker.CheckPrivateDir("WORK_DIR", workDir); err != nil {
		return nil, err
	}
	dir := filepath.Join(workDir, "fallback-results")
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("WORK_DIR %s: cannot make fallback-results: %v", workDir, err)
	}
	if err := worker.CheckPrivateDir("WORK_DIR's fallback-results folder", dir); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("fallback-results %s: %v", dir, err)
	}
	key, err := fallbackKey(filepath.Join(dir, keyName))
	if err != nil {
		return nil, err
	}
	// A kept task is escaped in JSON (up to 6 bytes a byte); the result
	// holds at most MaxOutput of output and the evaluator's details.
	maxFile := 7*int64(maxTask) + 64<<20
	return &fallbackDir{dir: dir, key: key, maxFile: maxFile, log: log, onPending: onPending}, nil
}

// fallbackKey reads the key at path, or makes it (32 random bytes, 0600).
func fallbackKey(path string) ([]byte, error) {
	key := make([]byte, 32)
	rand.Read(key)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err == nil {
		_, err = f.Write(key)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("fallback-results key %s: %v", path, err)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("fallback-results key %s: %v", path, err)
	}
	f, err = openPrivate(path)
	if err != nil {
		return nil, fmt.Errorf("fallback-results key %s: %v", path, err)
	}
	defer f.Close()
	n, err := io.ReadFull(f, key)
	if err != nil || n != len(key) {
		return nil, fmt.Errorf("fallback-results key %s is not 32 bytes: remove it (results kept under the old key are then not replayed)", path)
	}
	return key, nil
}

// openPrivate opens path for reading when it is a regular file of this
// uid's that no one else may read or write.
func openPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		err = errors.New("not a regular file")
	case st.Uid != uint32(os.Geteuid()):
		err = fmt.Errorf("owned by uid %d, not this worker's uid %d", st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o077 != 0:
		err = fmt.Errorf("mode %04o: others may read or write it", fi.Mode().Perm())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (f *fallbackDir) mac(kept []byte) string {
	m := hmac.New(sha256.New, f.key)
	m.Write(kept)
	return hex.EncodeToString(m.Sum(nil))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// maxNameID is how much of a submission id a file name shows.
const maxNameID = 64

// keptName is the file name of a result: the id's safe bytes (at most
// maxNameID, for people) then a hash of the whole id, so that two ids
// never share a name and any id fits a file name.
func keptName(id string, seq int64, n int) string {
	shown := unsafeName.ReplaceAllString(id, "_")
	if len(shown) > maxNameID {
		shown = shown[:maxNameID]
	}
	sum := sha256.Sum256([]byte(id))
	name := fmt.Sprintf("result-%s-%s-seq%d", shown, hex.EncodeToString(sum[:16]), seq)
	if n > 0 { // a second result of the same (id, seq): the task ran twice
		name += "-" + strconv.Itoa(n)
	}
	return name + ".json"
}

// keep writes result (and the task it answers) to a file of its own,
// whole: a temporary file linked to a name no file has.
func (f *fallbackDir) keep(result, task []byte) (string, error) {
	var head struct {
		SubmissionID string `json:"submission_id"`
		RejudgeSeq   int64  `json:"rejudge_seq"`
	}
	json.Unmarshal(result, &head)
	raw := string(task)
	kept, err := json.Marshal(keptResult{Result: result, Task: &raw})
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(keptFile{MAC: f.mac(kept), Kept: kept})
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(f.dir, ".tmp-result-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(body)
	if werr == nil {
		werr = tmp.Sync()
	}
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return "", werr
	}
	for n := 0; ; n++ {
		name := filepath.Join(f.dir, keptName(head.SubmissionID, head.RejudgeSeq, n))
		err := os.Link(tmp.Name(), name)
		if err == nil {
			f.count()
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) || n == 99 {
			return "", err
		}
	}
}

func (f *fallbackDir) files() []string {
	names, _ := filepath.Glob(filepath.Join(f.dir, "result-*.json"))
	return names
}

func (f *fallbackDir) count() {
	if f.onPending != nil {
		f.onPending(len(f.files()))
	}
}

// replay pushes every kept result this WORK_DIR's workers wrote; a pushed
// one's file is removed and its task LREMed. A file that is not private,
// does not parse, or does not carry this key's mac is renamed *.dead and
// never pushed.
func (f *fallbackDir) replay(ctx context.Context, b *Broker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.count()
	if err := f.checkDir(); err != nil {
		f.log.Error("kept results not replayed", "error", err.Error())
		return
	}
	for _, name := range f.files() {
		k, err := f.read(name)
		if err != nil {
			f.log.Error("kept result not replayed; renamed .dead", "file", name, "reason", err.Error())
			os.Rename(name, name+".dead")
			continue
		}
		if err := b.client.LPush(ctx, b.opts.ResultQueue, []byte(k.Result)).Err(); err != nil {
			f.log.Warn("replay of a kept result failed; will retry", "file", name, "error", err.Error())
			return // Redis is still away: try the rest next time
		}
		if k.Task != nil {
			if err := b.ack(ctx, []byte(*k.Task)); err != nil {
				f.log.Warn("replayed result's task stays in processing", "file", name, "error", err.Error())
			}
		}
		os.Remove(name)
		f.log.Info("replayed a kept result", "file", name)
	}
}

// checkDir: the folder is still private (anyone who could have read or
// written it could have planted or copied results).
func (f *fallbackDir) checkDir() error {
	if err := worker.CheckPrivateDir("WORK_DIR's fallback-results folder", f.dir); err != nil {
		return err
	}
	fi, err := os.Lstat(f.dir)
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("WORK_DIR's fallback-results folder %s may be read by group or others (mode %04o): run chmod 0700 %s after checking its files", f.dir, perm, f.dir)
	}
	return nil
}

// read reads and checks a kept file.
func (f *fallbackDir) read(name string) (keptResult, error) {
	file, err := openPrivate(name)
	if err != nil {
		return keptResult{}, err
	}
	body, err := io.ReadAll(io.LimitReader(file, f.maxFile+1))
	file.Close()
	if err != nil {
		return keptResult{}, err
	}
	if int64(len(body)) > f.maxFile {
		return keptResult{}, fmt.Errorf("larger than %d bytes", f.maxFile)
	}
	var kf keptFile
	if err := json.Unmarshal(body, &kf); err != nil {
		return keptResult{}, fmt.Errorf("does not parse: %v", err)
	}
	if !hmac.Equal([]byte(kf.MAC), []byte(f.mac(kf.Kept))) {
		return keptResult{}, errors.New("its mac is not this WORK_DIR's: no worker of this WORK_DIR wrote it")
	}
	var k keptResult
	if err := json.Unmarshal(kf.Kept, &k); err != nil || len(k.Result) == 0 || k.Result[0] != '{' {
		return keptResult{}, errors.New("holds no result object")
	}
	return k, nil
}
