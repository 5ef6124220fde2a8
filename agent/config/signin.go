package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// SignIn is what agent-lsp setup saves: the provider, its model, the
// address of a server (none for a provider the catalog knows) and the
// provider's API key (none for a server that takes none).
type SignIn struct {
	Provider, Model, BaseURL, Key string
}

// SaveSignIn writes s into the user's own config file (UserConfigPath) and
// returns its path: provider, model and base_url at the top, the key in
// [keys] under the provider's name (a key already there for a server
// that takes none stays). Everything else in the file — other
// settings, other keys, comments — is kept as it was. The file is made
// readable by the user alone (0600, its folder 0700) and replaced whole
// in one rename, so an interrupted save leaves the old one; it is never a
// project's file. A file that is not valid TOML is left alone, and the
// error says so.
func SaveSignIn(env Env, s SignIn) (string, error) {
	path := userConfigPath(env)
	if path == "" {
		return "", errors.New("no home directory to save the config in: set HOME or XDG_CONFIG_HOME")
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return path, err
	}
	if _, err := toml.Decode(string(old), new(map[string]any)); err != nil {
		return path, fmt.Errorf("%s is not valid TOML, so it was left as it is: %w", path, err)
	}
	text := signedIn(string(old), s)
	var check Settings
	if err := decodeFile(path, []byte(text), &check); err != nil || check.Provider != s.Provider || check.Model != s.Model ||
		check.BaseURL != s.BaseURL || s.Key != "" && check.Keys[s.Provider] != s.Key {
		return path, fmt.Errorf("%s could not be updated in place (%v): add provider, model, base_url and [keys] there by hand", path, err)
	}
	return path, writePrivate(path, []byte(text))
}

// signedIn is the config text with s's settings in place of the old ones.
func signedIn(text string, s SignIn) string {
	top := map[string]string{"provider": s.Provider, "model": s.Model, "base_url": s.BaseURL}
	for _, key := range []string{"provider", "model", "base_url"} {
		text = setKey(text, "", key, top[key])
	}
	if s.Key == "" {
		return text // a server without a key: a key kept for the provider stays
	}
	return setKey(text, "keys", s.Provider, s.Key)
}

// tableHeader matches a [table] or [[array]] header line.
var tableHeader = regexp.MustCompile(`^\s*\[`)

// setKey sets key = value (a TOML string) in table ("" for the top level)
// of text, replacing its line where there is one, or removes the line when
// value is "". A new top-level key goes before the first table; a new
// table goes at the end.
func setKey(text, table, key, value string) string {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start, end := tableSpan(lines, table)
	line := ""
	if value != "" {
		line = tomlKey(key) + " = " + tomlString(value) + "\n"
	}
	keyLine := regexp.MustCompile(`^\s*("?)` + regexp.QuoteMeta(key) + `("?)\s*=`)
	for i := max(start, 0); start >= 0 && i < end; i++ {
		if keyLine.MatchString(lines[i]) {
			lines[i] = line
			return strings.Join(lines, "")
		}
	}
	switch {
	case line == "":
	case start < 0: // no such table yet
		if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		lines = append(lines, "\n["+table+"]\n", line)
	default:
		lines = append(lines[:end], append([]string{line}, lines[end:]...)...)
	}
	return strings.Join(lines, "")
}

// tableSpan is the lines of table in lines, from its first key line to the
// next header (table "": the top level, before the first header); start is
// -1 where the table has no header.
func tableSpan(lines []string, table string) (start, end int) {
	start, end = -1, len(lines)
	if table == "" {
		start = 0
	}
	for i, l := range lines {
		if !tableHeader.MatchString(l) {
			continue
		}
		if start >= 0 {
			return start, i
		}
		if strings.TrimSpace(l) == "["+table+"]" {
			start = i + 1
		}
	}
	if start < 0 {
		return -1, len(lines)
	}
	return start, end
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b bytes.Buffer
	toml.NewEncoder(&b).Encode(map[string]string{"v": s})
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
}

// tomlKey is a key as TOML writes it: bare where it can be.
func tomlKey(k string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(k) {
		return k
	}
	return tomlString(k)
}

// writePrivate replaces path with data, readable by the user alone: a
// temporary file beside it, synced, then renamed over it.
func writePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; removes what a failure left
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
