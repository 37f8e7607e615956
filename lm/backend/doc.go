// Package backend holds the model clients an LM handler routes to: an
// OpenAI-compatible chat-completions client and a scripted echo backend for
// tests and demos. Each implements lm.Backend and is safe for concurrent use.
package backend
