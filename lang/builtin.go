package lang

import (
	"slices"
	"sync"

	csdk "github.com/tether-dev/tether/sdk/c"
	cppsdk "github.com/tether-dev/tether/sdk/cpp"
	gosdk "github.com/tether-dev/tether/sdk/go"
	javasdk "github.com/tether-dev/tether/sdk/java"
	jssdk "github.com/tether-dev/tether/sdk/javascript"
	rustsdk "github.com/tether-dev/tether/sdk/rust"
)

// Builtin languages (docs/languages.md). The ids and aliases include every
// value Neuro OJ's core sends as a task's language: python3, python, cpp,
// c, javascript.
//
// In compile commands {support} stands for the host's compile units (the
// files of Support with one of the language's extensions), so a language
// whose host is not linked in has none.
func builtin() []*Language {
	return []*Language{
		{
			ID: "python", Name: "Python 3", Aliases: []string{"python3", "py"},
			Extensions: []string{".py"}, Source: "main.py",
			// The judge puts the Python SDK on PYTHONPATH.
			Run:     []string{"python3", "-m", "noj_solution_sdk.host", "--entry", "{source}"},
			Version: []string{"python3", "--version"},
			Smoke:   "def add(a, b):\n    return a + b\n",
		},
		{
			ID: "cpp", Name: "C++17", Aliases: []string{"c++", "cc", "cxx", "cpp17"},
			Extensions: []string{".cpp", ".cc", ".cxx", ".c++"}, Source: "main.cpp",
			Compile: []string{"g++", "-std=c++17", "-O2", "-pipe", "-o", "main", "{source}", "{support}"},
			Run:     []string{"./main"},
			Version: []string{"g++", "--version"},
			Smoke:   "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n",
		},
		{
			ID: "c", Name: "C11", Aliases: []string{"c11"},
			Extensions: []string{".c"}, Source: "main.c",
			Compile: []string{"gcc", "-std=c11", "-O2", "-pipe", "-o", "main", "{source}", "{support}", "-lm"},
			Run:     []string{"./main"},
			Version: []string{"gcc", "--version"},
			Smoke: "#include \"tether.h\"\ntether_value *add(const tether_value *args) {\n" +
				"  return tether_int(tether_as_int(tether_at(args, 0)) + tether_as_int(tether_at(args, 1)));\n}\nTETHER_EXPORT(add)\n",
		},
		{
			ID: "java", Name: "Java 17+", Aliases: []string{"java17"},
			Extensions: []string{".java"}, Source: "Solution.java",
			Compile: []string{"javac", "-J-Xmx512m", "-encoding", "UTF-8", "-d", ".", "{source}", "{support}"},
			// The heap follows the solution's memory limit (the JVM cannot see
			// the sandbox's cgroup); the host's main class comes with Support.
			Run:     []string{"java", "-XX:+UseSerialGC", "-Xms16m", "-Xmx{memory_mb}m", "-cp", ".", "Solution"},
			Version: []string{"javac", "-version"},
			Paths:   []string{"/etc/java-*-openjdk"},
			Smoke:   "public class Solution {\n    public static long add(long a, long b) { return a + b; }\n}\n",
		},
		{
			ID: "javascript", Name: "JavaScript (Node.js)", Aliases: []string{"js", "node", "nodejs"},
			Extensions: []string{".js", ".mjs", ".cjs"}, Source: "main.js",
			Run:     []string{"node", "{source}"},
			Version: []string{"node", "--version"},
			Smoke:   "module.exports = { add: (a, b) => a + b };\n",
		},
		{
			ID: "go", Name: "Go", Aliases: []string{"golang"},
			Extensions: []string{".go"}, Source: "main.go",
			Run:     []string{"./main"},
			Version: []string{"go", "version"},
			// The Go toolchain runs many threads and processes. Without a
			// warmed GOCACHE (no build cache) a compile builds the standard
			// library too: about 20 s of CPU, 30 s wall on a busy judge.
			Limits: CompileLimits{Processes: 256, TimeLimitMs: 120000, CPUTimeLimitMs: 90000},
			Smoke: "package main\n\nimport (\n\t\"context\"\n\n\t\"github.com/tether-dev/tether/sdk/go/solution\"\n)\n\n" +
				"func main() {\n\tsolution.Register(\"add\", func(ctx context.Context, args []any) (any, error) {\n" +
				"\t\treturn args[0].(int64) + args[1].(int64), nil\n\t})\n\tsolution.Serve()\n}\n",
		},
		{
			ID: "rust", Name: "Rust", Aliases: []string{"rs"},
			Extensions: []string{".rs"}, Source: "main.rs",
			Compile: []string{"rustc", "--edition", "2021", "-O", "-o", "main", "{source}"},
			Run:     []string{"./main"},
			Version: []string{"rustc", "--version"},
			// rustc -O of a solution with its host takes about 9 s of CPU,
			// several times that in wall time on a busy judge.
			Limits: CompileLimits{TimeLimitMs: 90000, CPUTimeLimitMs: 60000},
			Smoke:  "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\ntether_export!(add);\n",
		},
	}
}

// Builtin is the table of the built-in languages, with the solution hosts
// of the sdk/<language> packages. Made once; a Table is not changed.
var Builtin = sync.OnceValue(func() *Table {
	t, err := NewTable(withHosts(builtin()))
	if err != nil {
		panic("lang: the built-in table is broken: " + err.Error())
	}
	return t
})

// withHosts wires each language's solution host (hosts) into its entry.
func withHosts(langs []*Language) []*Language {
	for _, l := range langs {
		if h, ok := hosts[l.ID]; ok {
			h(l)
		}
	}
	return langs
}

// hosts maps a language id to what wires its solution host in: Support,
// SupportVersion, and the commands the host's package gives.
var hosts = map[string]func(*Language){
	"cpp": func(l *Language) {
		l.Support, l.SupportVersion = cppsdk.Files.FS(), cppsdk.Files.Version
		l.Compile, l.Run = supportPlaceholder(cppsdk.Compile, cppsdk.HostUnit), slices.Clone(cppsdk.Run)
		l.PrebuildSupport = true
		for _, h := range cppsdk.Precompiled {
			l.Precompiled = append(l.Precompiled, &PrecompiledHeader{Name: h.Name, Includes: slices.Clone(h.Includes), Language: "c++-header"})
		}
	},
	"c": func(l *Language) {
		l.Support, l.SupportVersion = csdk.Files.FS(), csdk.Files.Version
		l.Compile, l.Run = supportPlaceholder(csdk.Compile, csdk.HostUnit), slices.Clone(csdk.Run)
		l.PrebuildSupport = true
	},
	"java": func(l *Language) {
		l.Support, l.SupportVersion = javasdk.Files.FS(), javasdk.Files.Version
		l.Compile, l.Run = slices.Clone(javasdk.Compile), slices.Clone(javasdk.Run)
		l.HostBuild = &HostBuild{Compile: slices.Clone(javasdk.CompileHost), Outputs: []string{javasdk.HostClasses},
			Submission: slices.Clone(javasdk.CompileSolution), Run: true}
		l.OutOfMemory = javasdk.OutOfMemory
	},
	"javascript": func(l *Language) {
		l.Support, l.SupportVersion = jssdk.Files.FS(), jssdk.Files.Version
		l.Run = slices.Clone(jssdk.Run)
	},
	"go": func(l *Language) {
		l.Support, l.SupportVersion = gosdk.FS(), gosdk.Version
		l.Compile, l.Run = slices.Clone(gosdk.Compile), slices.Clone(gosdk.Run)
		l.CompileEnv = slices.Clone(gosdk.Env)
		l.ToolCache, l.Warm = "GOCACHE", gosdk.Warm
		l.Outputs = []string{gosdk.Executable}
		l.SelfExe = true // the go command finds GOROOT by its own path
	},
	"rust": func(l *Language) {
		l.Support, l.SupportVersion = rustsdk.Files.FS(), rustsdk.Files.Version
		l.Source = rustsdk.Source
		l.SelfExe = true
		l.Compile, l.Run = slices.Clone(rustsdk.Compile), slices.Clone(rustsdk.Run)
		l.HostBuild = &HostBuild{Compile: slices.Clone(rustsdk.CompileHost), Outputs: []string{rustsdk.Library},
			Submission: slices.Clone(rustsdk.CompileSolution), Files: []string{rustsdk.BinRoot}}
	},
}

// supportPlaceholder is a host package's compile command with its host
// unit named by {support}, so the builder may link the unit's prebuilt
// object instead (Language.PrebuildSupport).
func supportPlaceholder(compile []string, unit string) []string {
	out := slices.Clone(compile)
	for i, a := range out {
		if a == unit {
			out[i] = "{support}"
		}
	}
	return out
}
