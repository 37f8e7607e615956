// Package defaults fills the unset fields of a configuration by the rule
// the worker's Config and the brokers' Options share: a number that is zero
// or negative is unset, and so is a nil logger.
package defaults

import "log/slog"

// Positive sets *v to def when *v is zero or negative.
func Positive[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Logger is l, or a logger that discards everything when l is nil.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
