package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
)

// trustHint ends every warning about an ignored project setting.
const trustHint = "(set it in your own config, or trust_project_config = true there to allow it)"

// untrusted removes from an untrusted project file (at path) every setting
// that would widen what happens without the user asking, and says what it
// removed: where requests go, which commands run unasked, whether edits are
// applied unreviewed, and how long the agent may go on. Each setting's row
// says what such a layer may do with it (Setting.Untrusted).
func untrusted(path string, user Settings, project *Settings) []string {
	return filterUntrusted(path, trustHint, user, project)
}

func filterUntrusted(source, hint string, user Settings, s *Settings) []string {
	var warnings []string
	warn := func(format string, args ...any) {
		warnings = append(warnings, source+": "+llm.RedactURLs(fmt.Sprintf(format, args...))+" "+hint)
	}
	for _, r := range table {
		if r.Untrusted.filter != nil {
			r.Untrusted.filter(r, user, s, warn)
		}
	}
	return warnings
}

// filterProvider keeps the project from sending the conversation (and the
// user's key) to another provider, which could move a user of a local
// server to a cloud one.
func filterProvider(_ Setting, user Settings, s *Settings, warn func(string, ...any)) {
	if s.Provider != "" && s.Provider != user.Provider {
		warn("provider %q ignored: your config uses %q", s.Provider, user.Provider)
		s.Provider = ""
	}
}

// elsewhere says whether a fallback names a server or another provider than
// the user's.
func elsewhere(user Settings, ref string) bool {
	if strings.Contains(ref, "@") {
		return true
	}
	m, err := ParseModelRef(ref)
	return err == nil && m.Provider != user.Provider
}

func filterFallback(_ Setting, user Settings, s *Settings, warn func(string, ...any)) {
	s.Fallback = slices.DeleteFunc(s.Fallback, func(ref string) bool {
		if ref == "" || !elsewhere(user, ref) {
			return false
		}
		warn("fallback %q ignored: a project file may not name a server or another provider", ref)
		return true
	})
}

func filterDegraded(_ Setting, user Settings, s *Settings, warn func(string, ...any)) {
	if s.Degraded != "" && elsewhere(user, s.Degraded) {
		warn("fallback %q ignored: a project file may not name a server or another provider", s.Degraded)
		s.Degraded = ""
	}
}

// filterAutoApply: auto_apply = false only asks for the preview: harmless.
func filterAutoApply(_ Setting, _ Settings, s *Settings, warn func(string, ...any)) {
	if isTrue(s.AutoApply) {
		warn("auto_apply ignored: it sends edits to the editor without a preview")
		s.AutoApply = nil
	}
}

func filterPlanConfirm(_ Setting, _ Settings, s *Settings, warn func(string, ...any)) {
	if s.PlanConfirm != nil && !*s.PlanConfirm {
		warn("plan_confirm = false ignored: plans would run without being shown first")
		s.PlanConfirm = nil
	}
}

func filterRunTests(_ Setting, _ Settings, s *Settings, warn func(string, ...any)) {
	if s.RunTests != nil && !*s.RunTests {
		warn("run_tests = false ignored: the proposal would be offered without its tests' verdict")
		s.RunTests = nil
	}
}

// filterLimit drops a limit above the user's own value, or above the
// default when the user set none. context_window is capped only by the
// user's own value: its default depends on the model, and a larger one than
// the model takes is refused by the provider anyway.
func filterLimit(r Setting, user Settings, s *Settings, warn func(string, ...any)) {
	ceiling := r.value(&user).Int()
	if d, ok := r.Default.(int); ceiling <= 0 && ok {
		ceiling = int64(d)
	}
	if v := r.value(s); ceiling > 0 && v.Int() > ceiling {
		warn("%s = %d ignored: above your limit of %d", r.TOML, v.Int(), ceiling)
		v.SetInt(0)
	}
}

// filterMCP drops an editor's MCP servers. (An untrusted project's, from
// .agent-lsp.toml and .mcp.json, loadProjectMCP drops first, naming the
// file of each.)
func filterMCP(_ Setting, _ Settings, s *Settings, warn func(string, ...any)) {
	if len(s.MCP.Servers) > 0 {
		warn("MCP servers %s ignored", strings.Join(slices.Sorted(maps.Keys(s.MCP.Servers)), ", "))
		s.MCP = MCP{}
	}
}

// editorHint ends every warning about an ignored editor setting.
const editorHint = "(this editor's settings may come from the repository: set it in your own config)"

// UntrustedPush removes from settings an editor pushed
// (workspace/didChangeConfiguration) what an untrusted project file may not
// set either, and says what it removed. Some editors fill those pushes from
// the repository without asking — eglot's workspace configuration is a safe
// file-local variable, so a .dir-locals.el sets it — so unless the client
// says its settings are the user's alone (experimental.agentLsp.userSettings,
// as our VS Code client, whose settings are machine-scoped, does), a push
// may not send the key elsewhere, allow commands, skip review, raise limits
// or add MCP servers. user is what the user's own layers say.
func UntrustedPush(user Settings, pushed *Settings) []string {
	return untrustedEditor("pushed settings", user, pushed)
}

// UntrustedInitOptions is UntrustedPush for initializationOptions, which
// some clients fill from the repository too (Helix merges a project's
// .helix/languages.toml into them).
func UntrustedInitOptions(user Settings, init *Settings) []string {
	return untrustedEditor("initializationOptions", user, init)
}

func untrustedEditor(source string, user Settings, s *Settings) []string {
	return filterUntrusted(source, editorHint, user, s)
}
