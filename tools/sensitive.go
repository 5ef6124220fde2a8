package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// SensitiveRule is one kind of file that steers a tool — an editor, the
// agent, another agent, CI, a hook manager or a toolchain that runs
// programs — and so is applied only when the user says so. Pattern is a
// slash path matched at any depth, case-insensitively: "name" is a file of
// that name; "a/b" a file at that path; a trailing "/" means every file
// under that directory.
type SensitiveRule struct {
	Pattern, Why string
}

// SensitiveRules is the one list of sensitive files. README.md's table is
// generated from it (TestREADMESensitiveTable).
var SensitiveRules = []SensitiveRule{
	{".agent-lsp.toml", "agent configuration"},
	{".mcp.json", "the agent's tool servers (MCP), which it starts"},
	{"AGENTS.md", "the agent's instructions"},
	{"CLAUDE.md", "another agent's instructions (Claude Code)"},
	{"GEMINI.md", "another agent's instructions (Gemini CLI)"},
	{".cursorrules", "another agent's instructions (Cursor)"},
	{".cursor/", "another agent's rules and settings (Cursor)"},
	{".github/copilot-instructions.md", "another agent's instructions (Copilot)"},
	{".windsurfrules", "another agent's instructions (Windsurf)"},
	{".clinerules", "another agent's instructions (Cline)"},
	{".clinerules/", "another agent's instructions (Cline)"},
	{".vscode/", "editor configuration (VS Code tasks and settings)"},
	{".helix/", "editor configuration (Helix)"},
	{".zed/", "editor configuration (Zed)"},
	{".idea/", "editor configuration (JetBrains run configurations)"},
	{".nvim.lua", "editor configuration (Neovim runs it)"},
	{".nvimrc", "editor configuration (Vim/Neovim run it)"},
	{".exrc", "editor configuration (Vim/Neovim run it)"},
	{".dir-locals.el", "editor configuration (Emacs directory variables)"},
	{".devcontainer/", "the dev container (what it builds and runs)"},
	{".github/workflows/", "CI workflows (GitHub Actions runs them)"},
	{".github/actions/", "CI actions (GitHub Actions runs them)"},
	{".gitlab-ci.yml", "CI pipeline (GitLab runs it)"},
	{".circleci/", "CI pipeline (CircleCI runs it)"},
	{"Jenkinsfile", "CI pipeline (Jenkins runs it)"},
	{"azure-pipelines.yml", "CI pipeline (Azure Pipelines runs it)"},
	{".azure-pipelines/", "CI pipelines (Azure Pipelines runs them)"},
	{"bitbucket-pipelines.yml", "CI pipeline (Bitbucket runs it)"},
	{".husky/", "git hooks (husky installs and runs them)"},
	{".pre-commit-config.yaml", "git hooks (pre-commit runs them)"},
	{"lefthook.yml", "git hooks (lefthook runs them)"},
	{".lefthook.yml", "git hooks (lefthook runs them)"},
	{".gitmodules", "git submodules (what git fetches)"},
	{".gitattributes", "git attributes (filters and diff drivers git runs)"},
	{".cargo/config.toml", "Cargo configuration (build scripts, runners, registries)"},
	{".cargo/config", "Cargo configuration (build scripts, runners, registries)"},
	{".npmrc", "npm configuration (scripts, registries, tokens)"},
	{".yarnrc.yml", "Yarn configuration (plugins it runs, registries)"},
	{"pip.conf", "pip configuration (where packages come from)"},
	{".envrc", "the shell environment (direnv runs it)"},
}

// SensitivePath says whether writing rel (slash-separated, relative to the
// workspace root) changes what editors, the agent or CI run or read, and why.
// Names compare case-insensitively: on a case-insensitive file system
// .VSCode is .vscode.
func SensitivePath(rel string) (why string, ok bool) {
	parts := foldedParts(rel)
	if len(parts) == 0 {
		return "", false
	}
	for _, r := range SensitiveRules {
		if r.matches(parts) {
			return r.Why, true
		}
	}
	return "", false
}

// matches reports whether the path (folded parts) is one the rule names.
func (r SensitiveRule) matches(parts []string) bool {
	under := strings.HasSuffix(r.Pattern, "/")
	pat := foldedParts(strings.TrimSuffix(r.Pattern, "/"))
	if !under {
		return len(parts) >= len(pat) && slices.Equal(parts[len(parts)-len(pat):], pat)
	}
	dirs := parts[:len(parts)-1] // the directories the file is under
	for i := 0; i+len(pat) <= len(dirs); i++ {
		if slices.Equal(dirs[i:i+len(pat)], pat) {
			return true
		}
	}
	return false
}

// ErrGitDir refuses a write under .git: the repository's configuration and
// hooks run code the next time git runs.
var ErrGitDir = errors.New("writes under .git are refused")

// refuseGitDir refuses rel (as resolved) and p (as given, when relative: an
// absolute one holds the root's own names) when any component is .git, so
// neither a nested repository nor a symlink into or out of one gets by.
func refuseGitDir(p, rel string) error {
	paths := []string{rel}
	if !filepath.IsAbs(p) {
		paths = append(paths, filepath.ToSlash(p))
	}
	for _, s := range paths {
		for _, part := range foldedParts(s) {
			if part == ".git" {
				return fmt.Errorf("%w: %s (the repository's configuration and hooks run code)", ErrGitDir, rel)
			}
		}
	}
	return nil
}

// foldedParts splits a slash path into names compared as file systems that
// ignore case would: lower-cased, without the trailing dots and spaces
// Windows drops, and without the code points HFS+ ignores (as git does).
func foldedParts(p string) []string {
	var out []string
	for _, part := range strings.Split(p, "/") {
		part = strings.Map(func(r rune) rune {
			if hfsIgnorable(r) {
				return -1
			}
			return r
		}, part)
		part = strings.TrimRight(strings.ToLower(part), ". ")
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}
