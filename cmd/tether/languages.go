package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/lang"
)

// addLanguageFlags adds the flags of a command that builds submissions:
// --languages-file (an operator's language table, docs/languages.md) and
// --build-cache.
func addLanguageFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String("languages-file", "", "an operator's languages file (docs/languages.md) that adds, changes or disables languages (env TETHER_LANGUAGES_FILE)")
	f.String("build-cache", "", "folder of the build cache of compiled submissions, or \"off\" (env TETHER_BUILD_CACHE; default your cache dir's tether/build)")
	f.Int64("build-cache-max-mb", lang.DefaultCacheBytes>>20, "MiB the build cache keeps, least recently used dropped first")
}

// addLanguageFlag adds --language, a submission's language.
func addLanguageFlag(cmd *cobra.Command) {
	cmd.Flags().String("language", "", "the solution's language: an id or alias of docs/languages.md (default: by the file's extension)")
}

// languageTable is the table of --languages-file (else the built-in one).
func languageTable(cmd *cobra.Command) (*lang.Table, error) {
	path, _ := cmd.Flags().GetString("languages-file")
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

// buildCache is the cache of --build-cache; nil when it is "off".
func buildCache(cmd *cobra.Command) (*lang.Cache, error) {
	dir, _ := cmd.Flags().GetString("build-cache")
	if dir == "" {
		dir = os.Getenv("TETHER_BUILD_CACHE")
	}
	if dir == "off" {
		return nil, nil
	}
	if dir == "" {
		dir = lang.DefaultCacheDir()
	}
	maxMB, _ := cmd.Flags().GetInt64("build-cache-max-mb")
	c, err := lang.OpenCache(filepath.Clean(dir), maxMB<<20)
	if err != nil {
		return nil, fmt.Errorf("--build-cache: %w (name another folder, or \"off\")", err)
	}
	return c, nil
}

// languageOptions are the table and the cache of a judging command.
func languageOptions(cmd *cobra.Command) (*lang.Table, *lang.Cache, error) {
	t, err := languageTable(cmd)
	if err != nil {
		return nil, nil, err
	}
	c, err := buildCache(cmd)
	if err != nil {
		return nil, nil, err
	}
	return t, c, nil
}

// submissionLanguage checks the solution file's language (--language, else
// its extension) before anything runs, so a typo is a usage error.
func submissionLanguage(cmd *cobra.Command, t *lang.Table, path string) (*lang.Language, error) {
	explicit, _ := cmd.Flags().GetString("language")
	l, err := t.Resolve(explicit, path)
	if err != nil {
		if explicit != "" {
			return nil, fmt.Errorf("--language: %w", err)
		}
		return nil, fmt.Errorf("%s: %w (or pass --language)", path, err)
	}
	return l, nil
}
