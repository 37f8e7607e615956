// Package pipeio is what dual's relay needs of the operating system's
// pipes: a pipe's capacity, writes that never block, and the primitives of
// the relay's one poller on Linux (an eventfd to wake it, poll(2), reads of
// descriptors the Go runtime does not watch). Elsewhere Polls is false and
// the relay reads every stdout through a goroutine, so the stubs are never
// called. Only package dual imports it.
package pipeio
