// Package config loads agent-lsp's settings: defaults, then the user's file
// ($XDG_CONFIG_HOME/agent-lsp/config.toml), then the project's .agent-lsp.toml,
// then the environment; the caller applies flags or LSP settings last with
// Merge. Secrets (API keys) come from the environment or the user's own
// file ([keys], which agent-lsp setup writes), never from a project or an
// editor.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools/projectfile"
)

// Providers this build knows. cmd/agent-lsp builds each on its SDK, from a
// table keyed by these names (its test checks that every name has a
// constructor).
const (
	ProviderOpenAI = "openai"
	ProviderGemini = "gemini"
)

// Providers lists the providers this build has an SDK for, in the order
// messages give them; every other provider the catalog knows is served on
// OpenAI's wire (KnownProvider).
func Providers() []string { return []string{ProviderOpenAI, ProviderGemini} }

// Env reads an environment variable; os.Getenv in production.
type Env func(string) string

// Load reads the files and the environment. Warnings describe settings that
// were ignored (an untrusted project file's base_url, say).
func Load(workspace string, env Env) (Settings, []string, error) {
	s := Settings{Provider: ProviderOpenAI}
	var warnings []string
	if p := userConfigPath(env); p != "" {
		if err := readFile(p, &s); err != nil {
			return s, nil, err
		}
		for name, m := range s.MCP.Servers {
			m.Origin = MCPFromUser
			s.MCP.Servers[name] = m
		}
	}
	if workspace != "" {
		var project Settings
		p := filepath.Join(workspace, projectConfigName)
		data, found, warning := readProjectFile(workspace, projectConfigName, "its settings are left out")
		if warning != "" {
			warnings = append(warnings, warning)
		}
		if found {
			if err := decodeFile(p, data, &project); err != nil {
				return s, nil, err
			}
		}
		w, err := loadProjectMCP(workspace, s, &project, p)
		if err != nil {
			return s, nil, err
		}
		warnings = append(warnings, w...)
		if !s.TrustProjectConfig {
			warnings = append(warnings, untrusted(p, s, &project)...)
		}
		warnings = append(warnings, projectLSPCommands(p, &project)...)
		if len(project.SandboxNetwork) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: sandbox_network ignored: only your own config can give commands the network", p))
			project.SandboxNetwork = nil
		}
		if len(project.Keys) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: [keys] ignored: API keys come from your own config or the environment", p))
			project.Keys = nil
		}
		s = Merge(s, project)
	}
	envSettings, err := fromEnv(env)
	if err != nil {
		return s, warnings, err
	}
	s = Merge(s, envSettings)
	warnings = append(warnings, mcpWarnings(s.MCP)...)
	s.OpenAIKey = cmp.Or(env("OPENAI_API_KEY"), s.Keys[ProviderOpenAI])
	s.GeminiKey = cmp.Or(env("GEMINI_API_KEY"), env("GOOGLE_API_KEY"), s.Keys[ProviderGemini])
	s.env = env
	return s, warnings, nil
}

// UserConfigPath is the user's own config file, which agent-lsp setup
// writes: $XDG_CONFIG_HOME/agent-lsp/config.toml, else under
// $HOME/.config; "" when neither is set.
func UserConfigPath(env Env) string { return userConfigPath(env) }

func userConfigPath(env Env) string {
	dir := env("XDG_CONFIG_HOME")
	if dir == "" {
		home := env("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agent-lsp", "config.toml")
}

// readFile reads the user's own config file, followed if a link (dotfile
// managers link it): it is the user's, not the workspace's.
func readFile(path string, s *Settings) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return decodeFile(path, data, s)
}

// projectConfigName is the project's settings file, at a workspace root.
const projectConfigName = ".agent-lsp.toml"

// maxProjectFileBytes caps .agent-lsp.toml and .mcp.json: a larger one is
// refused whole, since a cut TOML or JSON file says something else.
const maxProjectFileBytes = 1 << 20

// readProjectFile reads a settings file of the workspace as every project
// file is read (tools/projectfile): beneath the root, never through a link
// out of it, only a regular file, at most maxProjectFileBytes. found is
// false when it is not there, or cannot be read that way: then warning
// names it, says why and what is lost (lost), for the warnings Load
// returns. A repository's file must not stop agent-lsp from starting.
func readProjectFile(workspace, name, lost string) (data []byte, found bool, warning string) {
	data, err := projectfile.ReadWhole(workspace, name, maxProjectFileBytes)
	switch {
	case err == nil:
		return data, true, ""
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, ""
	}
	return nil, false, fmt.Sprintf("%v: ignored, %s (a project file is read only if it is a regular file inside the workspace, of at most %d MiB)",
		err, lost, maxProjectFileBytes>>20)
}

// decodeFile decodes the TOML of the config file at path.
func decodeFile(path string, data []byte, s *Settings) error {
	md, err := toml.Decode(string(data), s)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return fmt.Errorf("%s: unknown setting %q", path, undecoded[0].String())
	}
	return nil
}

func fromEnv(env Env) (Settings, error) {
	s := Settings{Provider: env("AGENT_LSP_PROVIDER"), Model: env("AGENT_LSP_MODEL"), Strategy: env("AGENT_LSP_STRATEGY"), Thinking: env("AGENT_LSP_THINKING"),
		ToolProtocol: env("AGENT_LSP_TOOL_PROTOCOL"), Degraded: env("AGENT_LSP_DEGRADED"),
		Completion: Completion{Model: env("AGENT_LSP_COMPLETION_MODEL")}, NES: NES{Model: env("AGENT_LSP_NES_MODEL")}}
	for _, f := range strings.Split(env("AGENT_LSP_FALLBACK"), ",") {
		if f = strings.TrimSpace(f); f != "" {
			s.Fallback = append(s.Fallback, f)
		}
	}
	switch s.Provider {
	case ProviderGemini:
		s.BaseURL = env("GOOGLE_GEMINI_BASE_URL")
	case ProviderOpenAI, "":
		s.BaseURL = env("OPENAI_BASE_URL")
	}
	if v := env("AGENT_LSP_MAX_ITERATIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("AGENT_LSP_MAX_ITERATIONS=%q: want a positive number", v)
		}
		s.MaxIterations = n
	}
	return s, nil
}

// Backup is one model a run may continue on: a fallback or, last, the
// degraded tier.
type Backup struct {
	Ref      string // "provider:model[:protocol][@base_url]"
	Degraded bool
}

// Backups lists the fallbacks in order, then the degraded tier.
func (s Settings) Backups() []Backup {
	var out []Backup
	for _, f := range s.Fallback {
		if f != "" {
			out = append(out, Backup{Ref: f})
		}
	}
	if s.Degraded != "" {
		out = append(out, Backup{Ref: s.Degraded, Degraded: true})
	}
	return out
}

// Validate says, naming the variable to set, what is missing for a run.
func (s Settings) Validate() error {
	if err := s.validateOne(); err != nil {
		return err
	}
	for _, b := range s.Backups() {
		m, err := ParseModelRef(b.Ref)
		if err != nil {
			return err
		}
		if err := s.For(m).validateOne(); err != nil {
			return fmt.Errorf("fallback %q: %w", llm.RedactURLs(b.Ref), err)
		}
	}
	return nil
}

func (s Settings) validateOne() error {
	if err := s.Completion.validate(); err != nil {
		return err
	}
	if err := s.NES.validate(); err != nil {
		return err
	}
	if err := s.validateEnums(); err != nil {
		return err
	}
	for model, price := range s.Prices {
		if len(price) != 3 || slices.ContainsFunc(price, func(f float64) bool { return f < 0 || math.IsNaN(f) || math.IsInf(f, 0) }) {
			return fmt.Errorf("prices: %q = %v: three numbers of US dollars per million tokens, [input, cached input, output], e.g. \"gpt-4.1-mini\" = [0.40, 0.10, 1.60]", model, price)
		}
	}
	return s.validateModel()
}

// AutoApplies says whether proposals go to clients without change
// annotations at once (auto_apply; unset: no).
func (s Settings) AutoApplies() bool { return isTrue(s.AutoApply) }

func isTrue(b *bool) bool { return b != nil && *b }

// ConfirmsPlans reports whether a plan waits for the user before its steps
// run: yes unless plan_confirm = false.
func (s Settings) ConfirmsPlans() bool { return s.PlanConfirm == nil || *s.PlanConfirm }

// RunsTests says whether the tests a proposal touches run before it is
// offered (run_tests; unset means on).
func (s Settings) RunsTests() bool { return s.RunTests == nil || *s.RunTests }

// EffectiveAllowlist is the built-in list (unless no_default_allowlist) plus
// the configured one.
func (s Settings) EffectiveAllowlist(defaults []string) []string {
	var out []string
	if !isTrue(s.NoDefaultAllowlist) {
		out = append(out, defaults...)
	}
	return append(out, s.Allowlist...)
}

// DefaultApprovalTimeoutS is how long an approval question waits where the
// settings say nothing: long enough to read the command, short enough that
// a client that never answers (Vim's ALE) does not hold the run for good.
const DefaultApprovalTimeoutS = 300

// ApprovalTimeout is how long the editor's approval question waits before
// it counts as Deny.
func (s Settings) ApprovalTimeout() time.Duration {
	return time.Duration(cmp.Or(s.ApprovalTimeoutS, DefaultApprovalTimeoutS)) * time.Second
}

// String shows the settings without secrets, for logs and status.
func (s Settings) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider=%s model=%s", s.Provider, s.Model)
	if s.BaseURL != "" {
		fmt.Fprintf(&b, " base_url=%s", llm.RedactURL(s.BaseURL))
	}
	return b.String()
}

// ModelRef is one entry of a fallback chain.
type ModelRef struct {
	Provider, Model, ToolProtocol, BaseURL string
}

func (m ModelRef) String() string { return m.Provider + ":" + m.Model }

// ParseModelRef reads "provider:model[:protocol][@base_url]".
func ParseModelRef(s string) (ModelRef, error) {
	var m ModelRef
	ref, base, _ := strings.Cut(strings.TrimSpace(s), "@")
	m.BaseURL = base
	parts := strings.SplitN(ref, ":", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return m, fmt.Errorf("fallback %q: want provider:model, e.g. openai:gpt-4o-mini or gemini:gemini-2.5-flash", llm.RedactURLs(s))
	}
	m.Provider, m.Model = parts[0], parts[1]
	if len(parts) == 3 {
		m.ToolProtocol = parts[2]
	}
	return m, nil
}

// For returns these settings aimed at another model: its provider, model,
// protocol and base URL; keys and limits stay.
func (s Settings) For(m ModelRef) Settings {
	s.Provider, s.Model, s.ToolProtocol, s.BaseURL = m.Provider, m.Model, m.ToolProtocol, m.BaseURL
	s.Fallback, s.Degraded = nil, ""
	return s
}
