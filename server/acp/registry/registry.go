// Package registry makes agent-lsp's entry in the ACP Registry (the list
// Zed, the JetBrains IDEs and other ACP clients install agents from) and
// the archives the entry points to: for each of the registry's targets an
// archive (.tar.gz; .zip for Windows) holding the binary, its SHA-256
// checksum, agent.json and the icon. The registry's client downloads the
// archive for its platform, extracts it and runs `agent-lsp acp`.
package registry

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

// Icon is agent-lsp's icon as the registry asks for one: a 16×16 SVG in
// one colour, currentColor, so that the client's theme colours it.
//
//go:embed icon.svg
var Icon []byte

// Agent is a registry entry (agent.json), in the registry's format.
type Agent struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	Repository   string       `json:"repository"`
	Authors      []string     `json:"authors"`
	License      string       `json:"license"`
	Icon         string       `json:"icon"`
	Distribution Distribution `json:"distribution"`
}

// Distribution is how the agent is installed: archives of binaries only.
type Distribution struct {
	Binary map[string]Target `json:"binary"`
}

// Target is one platform's archive and the command in it.
type Target struct {
	Archive string   `json:"archive"`
	Cmd     string   `json:"cmd"`
	Args    []string `json:"args"`
}

// Platform is a target of the registry and the Go build that serves it.
type Platform struct {
	Target, GOOS, GOARCH string
}

// Platforms are the registry's six targets, each built by Go.
var Platforms = []Platform{
	{"darwin-aarch64", "darwin", "arm64"},
	{"darwin-x86_64", "darwin", "amd64"},
	{"linux-aarch64", "linux", "arm64"},
	{"linux-x86_64", "linux", "amd64"},
	{"windows-aarch64", "windows", "arm64"},
	{"windows-x86_64", "windows", "amd64"},
}

// The entry's fixed fields.
const (
	ID          = "agent-lsp"
	Repository  = "https://github.com/agent-lsp/agent-lsp"
	Description = "A coding agent that reads your workspace as the editor sees it and proposes its changes as a diff you review; OpenAI, Gemini, OpenAI-compatible and local models"
	// License is "proprietary" until the repository has a LICENSE file: choosing
	// one is the owners' decision, and the registry takes this word for none.
	License = "proprietary"
)

// Binary is the executable's name on p.
func (p Platform) Binary() string {
	if p.GOOS == "windows" {
		return "agent-lsp.exe"
	}
	return "agent-lsp"
}

// Archive is the file name of p's archive for version.
func (p Platform) Archive(version string) string {
	ext := ".tar.gz"
	if p.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("agent-lsp-%s-%s%s", version, p.Target, ext)
}

// semver is the start the registry requires of a version.
var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+`)

// Version is the registry's version for a build's (git describe's):
// v1.2.3 is 1.2.3; a build between releases (a commit, "dev") is
// 0.0.0-that, so that it still reads as a version.
func Version(build string) string {
	if v := strings.TrimPrefix(build, "v"); semver.MatchString(v) {
		return v
	}
	return "0.0.0-" + strings.Trim(regexp.MustCompile(`[^0-9A-Za-z.-]+`).ReplaceAllString(build, "-"), "-")
}

// Entry is the registry entry of version, its archives at baseURL (the
// release's download address, without a trailing slash).
func Entry(version, baseURL string) Agent {
	a := Agent{ID: ID, Name: "agent-lsp", Version: version, Description: Description, Repository: Repository,
		Authors: []string{"The agent-lsp authors"}, License: License, Icon: "./icon.svg",
		Distribution: Distribution{Binary: map[string]Target{}}}
	for _, p := range Platforms {
		a.Distribution.Binary[p.Target] = Target{Archive: strings.TrimSuffix(baseURL, "/") + "/" + p.Archive(version), Cmd: "./" + p.Binary(), Args: []string{"acp"}}
	}
	return a
}
