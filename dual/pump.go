package dual

import "io"

// pump is how the relay reads the sides' stdouts and writes a stdin
// without blocking: the one place it does something else for speed. The
// plain pump, goroutines, gives each stdout a reader goroutine (read, in
// relay.go) and never writes without blocking. On Linux the poller
// (pump_linux.go) reads every non-blocking pipe on one goroutine that
// polls a while before it sleeps, and writes into a pipe that has room
// straight from that goroutine: a quick exchange then wakes no relay
// thread per frame.
type pump interface {
	read(c *conn)                        // start reading c's stdout (c.q exists); r.mu held
	stop(c *conn)                        // stop reading c's stdout and close it; r.mu held
	writer(w io.Writer) func([]byte) int // writes what w takes now without blocking; nil if it cannot
	close()                              // once every goroutine of the run has returned
}

type goroutines struct{ r *Relay }

func (g goroutines) read(c *conn) {
	g.r.wg.Add(1)
	go g.r.read(c)
}

func (goroutines) stop(c *conn)                      { c.ep.Stdout.Close() }
func (goroutines) writer(io.Writer) func([]byte) int { return nil }
func (goroutines) close()                            {}
