package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// What the tools read of git besides the .gitignore files, read with
// go-git's parsers and never by running git: a repository's .git/config is
// the workspace's to write, and git obeys it (core.fsmonitor runs a command
// at every status or ls-files). So the user's excludes file is found from
// the user's own config alone, and the repository gives only its index and
// info/exclude.

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
	if _, common := gitDirs(root); common != "" {
		// Not followed if a link, unlike git: the workspace's link could
		// point at any file of the user's.
		rules.add(readIgnoreFile(filepath.Join(common, "info", "exclude"), nil))
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

// gitDirs finds the repository of a worktree at root: its git dir (.git, or
// where a .git file points) and the common dir holding info/ (the main
// repository's, for a linked worktree). Both are "" when root has none.
func gitDirs(root string) (gitDir, common string) {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return "", ""
	case fi.IsDir():
		return dotGit, dotGit
	}
	data, err := ReadRegular(dotGit)
	dir, ok := strings.CutPrefix(string(bytes.TrimSpace(data)), "gitdir: ")
	if err != nil || !ok {
		return "", ""
	}
	gitDir = resolveFrom(root, dir)
	common = gitDir
	if data, err := ReadRegular(filepath.Join(gitDir, "commondir")); err == nil {
		common = resolveFrom(gitDir, string(bytes.TrimSpace(data)))
	}
	return gitDir, common
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
	gitDir, _ := gitDirs(root)
	if gitDir == "" {
		return nil
	}
	f, err := openRegular(filepath.Join(gitDir, "index"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(f).Decode(&idx); err != nil && len(idx.Entries) == 0 {
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
