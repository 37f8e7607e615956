// Package javasdk carries the Java (17+) solution host, Tether.java, inside
// the tether binary. Every public static method of the solution class is
// callable by its name, and so is a declared function's static method of
// any access (docs/languages.md, "Java" and "Declared functions").
package javasdk

import (
	"embed"
	"slices"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

//go:embed src/Tether.java
var embedded embed.FS

// Files are the host's files as the binary carries them: Files.FS() has
// "Tether.java" at its root, Files.WriteTo(dir) writes them into a work dir
// (sdkfs.WriteTo), and Files.Version names their content (a build cache's
// key).
var Files = sdkfs.Embed(embedded, "src", "javasdk")

// HostUnit is the host's source; its class Tether is the program's main
// class. HostClasses matches the class files it compiles to (Tether and
// its nested classes).
const (
	HostUnit    = "Tether.java"
	HostClasses = "Tether*.class"
)

// Compile builds the classes in the work dir holding the source
// ({source}, Solution.java) and the files Files.WriteTo wrote. Run starts the
// host there with the solution's class name as its argument; {memory_mb}
// is the solution's memory limit, so the heap follows it (from a small
// start, -Xms16m: the JVM's default commits 1/64 of the machine's memory at
// once, which the rootless sandbox's limit of the data size refuses): a heap that
// reaches it ends the JVM (ExitOnOutOfMemoryError), which writes
// OutOfMemory to stderr (DisplayVMOutputToStderr: not into the channel), and the judge counts that as the memory limit.
//
// CompileHost and CompileSolution make the same classes in two steps: the
// host's alone, once (the judge keeps them in its build cache), then the
// solution's, in a work dir holding the host's classes (not its source,
// which javac would compile again if it looked newer), which the run
// loads beside the solution's.
var (
	javac           = []string{"javac", "-J-Xmx512m", "-encoding", "UTF-8", "-nowarn"}
	Compile         = slices.Concat(javac, []string{"-d", ".", "{source}", HostUnit})
	CompileHost     = slices.Concat(javac, []string{"-d", ".", HostUnit})
	CompileSolution = slices.Concat(javac, []string{"-cp", ".", "-d", ".", "{source}"})
	Run             = []string{"java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms16m", "-Xmx{memory_mb}m", "-XX:+ExitOnOutOfMemoryError", "-XX:+DisplayVMOutputToStderr", "-cp", ".", "Tether", "Solution"}
	OutOfMemory     = "Terminating due to java.lang.OutOfMemoryError"
)
