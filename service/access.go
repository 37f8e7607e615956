package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/rootfile"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/judge"
)

// maxSolutionBytes bounds a solution file read from a host path.
const maxSolutionBytes = 16 << 20

// resolveUnder resolves path (relative paths are taken from root) to a real
// path, with every link followed, that lies inside root; what lies outside,
// lexically or once links are followed, is refused without saying whether
// it exists. field and flag name what the caller sent and how to fix it.
func resolveUnder(root, path, field, flag string) (string, error) {
	if root == "" {
		return "", jsonrpc.InvalidParams("%s: host paths are not accepted by this server (start it with %s DIR, or send the content inline)", field, flag)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, root, err)
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, root, err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(realRoot, path)
	}
	outside := jsonrpc.InvalidParams("%s: %q is not inside %s (the server's %s)", field, path, realRoot, flag)
	if !within(realRoot, filepath.Clean(path)) {
		return "", outside
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", jsonrpc.InvalidParams("%s: %q not found under %s", field, path, realRoot)
		}
		return "", jsonrpc.InvalidParams("%s: %q: %v", field, path, err)
	}
	if !within(realRoot, real) {
		return "", outside
	}
	return real, nil
}

// within reports whether path is root or lies under it (both clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readUnder reads the file at real (resolved by resolveUnder) through an
// os.Root of root, so that a link swapped in after the check cannot lead
// the read out of it, with at most maxSolutionBytes; a FIFO is refused,
// not waited on.
func readUnder(root, real, field string) ([]byte, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(realRoot)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rel, err := filepath.Rel(realRoot, real)
	if err != nil {
		return nil, jsonrpc.InvalidParams("%s: %v", field, err)
	}
	buf, err := rootfile.Read(r, rel, maxSolutionBytes)
	switch {
	case errors.Is(err, rootfile.ErrNotRegular):
		return nil, jsonrpc.InvalidParams("%s: %q is not a regular file", field, real)
	case errors.Is(err, rootfile.ErrTooBig):
		return nil, jsonrpc.InvalidParams("%s: %q is over the %d-byte cap", field, real, maxSolutionBytes)
	case err != nil:
		return nil, jsonrpc.InvalidParams("%s: %v", field, err)
	}
	return buf, nil
}

// checkProblemPolicy refuses what a problem asks that this server does not
// grant: a solution command off the allow-list, or an evaluator's network.
func (s *Service) checkProblemPolicy(p *judge.Problem) error {
	allowed := s.opts.AllowedCommands
	if allowed == nil {
		allowed = judge.DefaultAllowedCommands
	}
	if cmd := p.Runtime.Solution.Command; cmd != nil {
		ok := false
		for _, a := range allowed {
			if cmd[0] == a {
				ok = true
				break
			}
		}
		if !ok {
			return jsonrpc.InvalidParams("problem: runtime_config.solution.command: %q is not on the allow-list (allowed: %s; the server's --allow-command sets it)",
				cmd[0], strings.Join(allowed, ", "))
		}
	}
	if p.Runtime.Evaluator.Network && !s.opts.AllowNetwork {
		return jsonrpc.InvalidParams("problem: runtime_config.evaluator.network.enabled: this server does not give evaluators the network (start it with --allow-network)")
	}
	return nil
}
