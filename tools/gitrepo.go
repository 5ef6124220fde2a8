package tools

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/agent-lsp/agent-lsp/tools/projectfile"
)

// What the tools read of git besides the .gitignore files, read with
// go-git's parsers and never by running git: a repository's .git/config is
// the workspace's to write, and git obeys it (core.fsmonitor runs a command
// at every status or ls-files). So the user's excludes file is found from
// the user's own config alone, and the repository gives only its index and
// info/exclude. Every file of the repository's is read as every project file
// is (tools/projectfile): beneath the directory git would look in, never
// through a link out of it, only a regular file, up to a cap.

// Caps on what is read of a repository: a .git file or commondir is one
// path; info/exclude a list of patterns; the index a few hundred bytes a
// file (a million files fit).
const (
	maxGitPathFileBytes = 64 << 10
	maxIndexBytes       = 512 << 20
)

// baseRules are the patterns below every .gitignore: the user's excludes
// file, then the repository's info/exclude, both relative to the root.
func baseRules(root string) *ignoreRules {
	rules := &ignoreRules{}
	if file := userExcludesFile(); file != "" {
		// The user's own file, followed if a link (dotfile managers link it).
		if real, err := filepath.EvalSymlinks(file); err == nil {
			rules.add(readIgnoreFile(real, nil))
		}
	}
	if _, common, ok := gitDirs(root); ok {
		// Followed if a link only while it stays in the repository's
		// directory, unlike git: the workspace's link could point at any
		// file of the user's.
		rel := path.Join(common.rel, "info", "exclude")
		if data, cut, err := readIgnoreData(common.root, rel, projectfile.Read); err == nil {
			rules.add(parsedIgnoreData(rel, data, cut, nil, maxIgnoreInForce))
		}
	}
	return rules
}

// userExcludesFile is git's core.excludesFile as the user's own config sets
// it (the system's, then $XDG_CONFIG_HOME/git/config, then ~/.gitconfig, or
// $GIT_CONFIG_GLOBAL instead of those two), else git's default,
// $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore. A relative path
// would be the workspace's: none is read. [include]s are not followed.
func userExcludesFile() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		configs = append(configs, cmpOr(os.Getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"))
	}
	if global := os.Getenv("GIT_CONFIG_GLOBAL"); global != "" {
		configs = append(configs, global)
	} else {
		if xdg != "" {
			configs = append(configs, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			configs = append(configs, filepath.Join(home, ".gitconfig"))
		}
	}
	file := ""
	if xdg != "" {
		file = filepath.Join(xdg, "git", "ignore")
	}
	for _, c := range configs {
		if v, ok := configValue(c, "core", "excludesfile"); ok {
			file = v
		}
	}
	if rest, ok := strings.CutPrefix(file, "~/"); ok && home != "" {
		file = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(file) {
		return ""
	}
	return file
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// configValue reads one key of a git config file (followed if a link: it is
// the user's).
func configValue(file, section, key string) (string, bool) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", false
	}
	data, err := ReadRegular(real)
	if err != nil {
		return "", false
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return "", false
	}
	value, found := "", false
	for _, s := range cfg.Sections { // the last value wins, as in git
		if s.IsName(section) && s.Options.Has(key) {
			value, found = s.Options.Get(key), true
		}
	}
	return value, found
}

// gitPlace is a directory of git's as its files are read: beneath root, at
// rel (slash-separated) in it.
type gitPlace struct{ root, rel string }

func (g gitPlace) read(name string, limit int64) ([]byte, error) {
	return projectfile.ReadWhole(g.root, path.Join(g.rel, name), limit)
}

func (g gitPlace) dir() string { return filepath.Join(g.root, filepath.FromSlash(g.rel)) }

// gitDirs finds the repository of a worktree at root: its git dir (.git, or
// where a .git file points) and the common dir holding info/ (the main
// repository's, for a linked worktree); ok is false when root has none.
// A .git directory is read beneath the workspace; a directory a .git file
// or commondir names is the root of its own reads (a linked worktree's is
// outside the workspace, in the main repository).
func gitDirs(root string) (gitDir, common gitPlace, ok bool) {
	fi, err := os.Lstat(filepath.Join(root, ".git"))
	switch {
	case err != nil:
		return gitPlace{}, gitPlace{}, false
	case fi.IsDir():
		in := gitPlace{root, ".git"}
		return in, in, true
	}
	data, err := projectfile.ReadWhole(root, ".git", maxGitPathFileBytes)
	dir, found := strings.CutPrefix(string(bytes.TrimSpace(data)), "gitdir: ")
	if err != nil || !found {
		return gitPlace{}, gitPlace{}, false
	}
	gitDir = gitPlace{resolveFrom(root, dir), "."}
	common = gitDir
	if data, err := gitDir.read("commondir", maxGitPathFileBytes); err == nil {
		common = gitPlace{resolveFrom(gitDir.dir(), string(bytes.TrimSpace(data))), "."}
	}
	return gitDir, common, true
}

func resolveFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// trackedFiles lists the files and links in the index of root's repository
// (nil without one, or with an index go-git cannot read). A path that is not
// local, or that passes through a .git, is dropped: the index is the
// workspace's to write.
func trackedFiles(root string) []string {
	gitDir, _, ok := gitDirs(root)
	if !ok {
		return nil
	}
	data, err := gitDir.read("index", maxIndexBytes)
	if err != nil {
		return nil
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil && len(idx.Entries) == 0 {
		return nil
	}
	var files []string
	seen := map[string]bool{}
	for _, e := range idx.Entries {
		switch {
		case seen[e.Name], !filepath.IsLocal(e.Name), inGitDir(e.Name):
			continue
		case e.Mode == filemode.Regular, e.Mode == filemode.Deprecated, e.Mode == filemode.Executable, e.Mode == filemode.Symlink:
			seen[e.Name] = true // once, though a conflict has it in up to three stages
			files = append(files, e.Name)
		}
	}
	return files
}

func inGitDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}
