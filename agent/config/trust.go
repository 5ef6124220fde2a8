package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Defaults of the limits, as the agent and tools apply them when the config
// says nothing; an untrusted project may lower a limit but not raise it above
// these (or above the user's own value).
const (
	defaultMaxIterations   = 10      // agent.DefaultMaxIterations
	defaultCommandTimeoutS = 30      // tools.CommandLimits.Timeout
	defaultMaxOutput       = 200_000 // tools.CommandLimits.MaxOutput
	defaultMaxTrials       = 3       // reflexion
	defaultMaxReplans      = 2       // plan-and-execute
	defaultRetryAttempts   = 5       // resilience.RetryOptions.MaxAttempts
	defaultRetryBaseMS     = 1000    // resilience.RetryOptions.Base
)

// trustHint ends every warning about an ignored project setting.
const trustHint = "(set it in your own config, or trust_project_config = true there to allow it)"

// untrusted removes from an untrusted project file (at path) every setting
// that would widen what happens without the user asking, and says what it
// removed: where requests go, which commands run unasked, whether edits are
// applied unreviewed, and how long the agent may go on.
func untrusted(path string, user Settings, project *Settings) []string {
	var warnings []string
	warn := func(format string, args ...any) {
		warnings = append(warnings, path+": "+fmt.Sprintf(format, args...)+" "+trustHint)
	}
	untrustedServers(user, project, warn)
	untrustedPermissions(project, warn)
	untrustedLimits(user, project, warn)
	untrustedCompletion(project, warn)
	return warnings
}

// untrustedServers keeps the project from sending the conversation (and the
// user's key) elsewhere: another base URL, or another provider, which could
// move a user of a local server to a cloud one.
func untrustedServers(user Settings, project *Settings, warn func(string, ...any)) {
	if project.BaseURL != "" {
		warn("base_url ignored")
		project.BaseURL = ""
	}
	if project.Provider != "" && project.Provider != user.Provider {
		warn("provider %q ignored: your config uses %q", project.Provider, user.Provider)
		project.Provider = ""
	}
	elsewhere := func(ref string) bool {
		if strings.Contains(ref, "@") {
			return true
		}
		m, err := ParseModelRef(ref)
		return err == nil && m.Provider != user.Provider
	}
	for _, b := range project.Backups() {
		if elsewhere(b.Ref) {
			warn("fallback %q ignored: a project file may not name a server or another provider", b.Ref)
		}
	}
	project.Fallback = slices.DeleteFunc(project.Fallback, elsewhere)
	if project.Degraded != "" && elsewhere(project.Degraded) {
		project.Degraded = ""
	}
}

// untrustedPermissions drops what runs or applies without asking.
func untrustedPermissions(project *Settings, warn func(string, ...any)) {
	if len(project.Checks) > 0 {
		warn("checks ignored: they run without asking")
		project.Checks = nil
	}
	// no_default_allowlist either way: false would give back the built-in
	// allowlist the user dropped.
	if len(project.Allowlist) > 0 || project.NoDefaultAllowlist != nil {
		warn("allowlist ignored")
		project.Allowlist, project.NoDefaultAllowlist = nil, nil
	}
	// auto_apply = false only asks for the preview: harmless.
	if isTrue(project.AutoApply) {
		warn("auto_apply ignored: it sends edits to the editor without a preview")
		project.AutoApply = nil
	}
	if project.Thinking != "" {
		warn("thinking ignored: a project may not make the model think (and bill) more")
		project.Thinking = ""
	}
	if project.PlanConfirm != nil && !*project.PlanConfirm {
		warn("plan_confirm = false ignored: plans would run without being shown first")
		project.PlanConfirm = nil
	}
}

// untrustedLimits drops a limit above the user's own value, or above the
// default when the user set none. context_window is capped only by the
// user's own value: its default depends on the model, and a larger one than
// the model takes is refused by the provider anyway.
func untrustedLimits(user Settings, project *Settings, warn func(string, ...any)) {
	for _, l := range []struct {
		name        string
		value       *int
		user, deflt int
	}{
		{"max_iterations", &project.MaxIterations, user.MaxIterations, defaultMaxIterations},
		{"command_timeout_s", &project.CommandTimeoutS, user.CommandTimeoutS, defaultCommandTimeoutS},
		{"max_output", &project.MaxOutput, user.MaxOutput, defaultMaxOutput},
		{"max_trials", &project.MaxTrials, user.MaxTrials, defaultMaxTrials},
		{"max_replans", &project.MaxReplans, user.MaxReplans, defaultMaxReplans},
		{"context_window", &project.ContextWindow, user.ContextWindow, 0},
		// More tries and longer waits keep a run (and the user's bill and
		// wait) going against a failing provider.
		{"retry_attempts", &project.RetryAttempts, user.RetryAttempts, defaultRetryAttempts},
		{"retry_base_ms", &project.RetryBaseMS, user.RetryBaseMS, defaultRetryBaseMS},
	} {
		ceiling := l.user
		if ceiling <= 0 {
			ceiling = l.deflt
		}
		if ceiling > 0 && *l.value > ceiling {
			warn("%s = %d ignored: above your limit of %d", l.name, *l.value, ceiling)
			*l.value = 0
		}
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
	var warnings []string
	warn := func(format string, args ...any) {
		warnings = append(warnings, source+": "+fmt.Sprintf(format, args...)+" "+editorHint)
	}
	untrustedServers(user, s, warn)
	untrustedPermissions(s, warn)
	untrustedLimits(user, s, warn)
	untrustedCompletion(s, warn)
	if len(s.MCP.Servers) > 0 {
		warn("MCP servers %s ignored", strings.Join(slices.Sorted(maps.Keys(s.MCP.Servers)), ", "))
		s.MCP = MCP{}
	}
	return warnings
}
