package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/tether-dev/tether/lang"
)

// buildOptions are the flags of a command that builds submissions: an
// operator's language table and the build cache.
type buildOptions struct {
	LanguagesFile   string // docs/languages.md; "": TETHER_LANGUAGES_FILE, else the built-in table
	BuildCache      string // a folder or "off"; "": TETHER_BUILD_CACHE, else the user's cache dir
	BuildCacheMaxMB int64
}

func (o *buildOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.LanguagesFile, "languages-file", "", "an operator's languages file (docs/languages.md) that adds, changes or disables languages (env TETHER_LANGUAGES_FILE)")
	f.StringVar(&o.BuildCache, "build-cache", "", "folder of the build cache of compiled submissions, or \"off\" (env TETHER_BUILD_CACHE; default your cache dir's tether/build)")
	f.Int64Var(&o.BuildCacheMaxMB, "build-cache-max-mb", lang.DefaultCacheBytes>>20, "MiB the build cache keeps, least recently used dropped first")
}

// addLanguageFlag adds --language, a submission's language.
func addLanguageFlag(f *pflag.FlagSet, language *string) {
	f.StringVar(language, "language", "", "the solution's language: an id or alias of docs/languages.md (default: by the file's extension)")
}

// languageTable is the table of the languages file at path (--languages-file,
// else TETHER_LANGUAGES_FILE, else the built-in one).
func languageTable(path string) (*lang.Table, error) {
	if path == "" {
		path = os.Getenv("TETHER_LANGUAGES_FILE")
	}
	if path == "" {
		return lang.Builtin(), nil
	}
	t, err := lang.LoadFile(path, lang.Builtin())
	if err != nil {
		return nil, fmt.Errorf("--languages-file: %w", err)
	}
	return t, nil
}

// cache is the cache of --build-cache; nil when it is "off".
func (o *buildOptions) cache() (*lang.Cache, error) {
	dir := o.BuildCache
	if dir == "" {
		dir = os.Getenv("TETHER_BUILD_CACHE")
	}
	if dir == "off" {
		return nil, nil
	}
	if dir == "" {
		dir = lang.DefaultCacheDir()
	}
	c, err := lang.OpenCache(filepath.Clean(dir), o.BuildCacheMaxMB<<20)
	if err != nil {
		return nil, fmt.Errorf("--build-cache: %w (name another folder, or \"off\")", err)
	}
	return c, nil
}

// languages are the table and the cache of a judging command.
func (o *buildOptions) languages() (*lang.Table, *lang.Cache, error) {
	t, err := languageTable(o.LanguagesFile)
	if err != nil {
		return nil, nil, err
	}
	c, err := o.cache()
	if err != nil {
		return nil, nil, err
	}
	return t, c, nil
}

// submissionLanguage checks the solution file's language (explicit, from
// --language, else its extension) before anything runs, so a typo is a
// usage error.
func submissionLanguage(explicit string, t *lang.Table, path string) (*lang.Language, error) {
	l, err := t.Resolve(explicit, path)
	if err != nil {
		if explicit != "" {
			return nil, fmt.Errorf("--language: %w", err)
		}
		return nil, fmt.Errorf("%s: %w (or pass --language)", path, err)
	}
	return l, nil
}
