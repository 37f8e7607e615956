package main

import "context"

// serveUntil runs serve on a goroutine it owns until serve returns or ctx
// ends; either way stop is called and the goroutine is waited for. An end
// through ctx (an interrupt) is not an error.
func serveUntil(ctx context.Context, serve func() error, stop func()) error {
	done := make(chan error, 1)
	go func() { done <- serve() }()
	select {
	case <-ctx.Done():
		stop()
		<-done
		return nil
	case err := <-done:
		stop()
		return err
	}
}
