// Package lang knows the languages solutions are written in: the table of
// languages (built-in, changed by an operator's languages file), how a
// submission's language is told (an explicit name, else its file's
// extension), the compile step, run in a sandbox of its own with limits of
// its own, and the build cache. The judge asks it for a Build (the files
// and the command that start a solution) and knows nothing language
// specific. docs/languages.md is the user's view.
package lang
