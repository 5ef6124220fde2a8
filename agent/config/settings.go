package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Settings is everything a run needs to know. The json tags are the names of
// LSP initializationOptions and workspace/didChangeConfiguration settings.
// A switch a later layer must be able to turn off again is a *bool (nil:
// unset), read through its method. Every field but the secrets has its row
// in table, below, which says who may set it: add a setting as a field and
// a row, then regenerate README.md's table and declare it in the VS Code
// manifest if an editor may set it (the tests say what is missing).
type Settings struct {
	Provider      string   `toml:"provider" json:"provider,omitempty"`
	Model         string   `toml:"model" json:"model,omitempty"`
	BaseURL       string   `toml:"base_url" json:"baseUrl,omitempty"`
	MaxIterations int      `toml:"max_iterations" json:"maxIterations,omitempty"`
	Allowlist     []string `toml:"allowlist" json:"allowlist,omitempty"`
	// NoDefaultAllowlist drops the built-in read-only allowlist (see
	// EffectiveAllowlist).
	NoDefaultAllowlist *bool `toml:"no_default_allowlist" json:"noDefaultAllowlist,omitempty"`
	CommandTimeoutS    int   `toml:"command_timeout_s" json:"commandTimeoutS,omitempty"`
	MaxOutput          int   `toml:"max_output" json:"maxOutput,omitempty"`
	// ApprovalTimeoutS bounds how long the server waits for the editor's
	// answer to a question or an edit (0: DefaultApprovalTimeoutS): an
	// unanswered approval counts as Deny, an unanswered edit leaves the
	// proposal pending. Read through ApprovalTimeout.
	ApprovalTimeoutS int `toml:"approval_timeout_s" json:"approvalTimeoutS,omitempty"`
	// TrustProjectConfig lets a workspace's .agent-lsp.toml set what widens
	// what happens without asking: base_url, another provider, fallbacks naming
	// a server or provider, checks, the allowlist, auto_apply, limits above
	// yours, and MCP servers ([mcp.servers], .mcp.json). Off by default: a
	// cloned repository must not be able to send your API key elsewhere,
	// allow itself commands or programs, or skip your review. Only the
	// user's own file sets it: Merge never takes it from a later layer.
	TrustProjectConfig bool `toml:"trust_project_config" json:"-"`
	// AutoApply sends proposals to clients without change annotations at once
	// (see AutoApplies).
	AutoApply *bool `toml:"auto_apply" json:"autoApply,omitempty"`
	// ToolProtocol is native (default), json, text or auto: how the primary model
	// calls tools. Fallback entries may name their own.
	ToolProtocol string `toml:"tool_protocol" json:"toolProtocol,omitempty"`
	// Fallback lists the models to continue on when the primary fails for
	// good, in order: "provider:model[:protocol][@base_url]".
	Fallback []string `toml:"fallback" json:"fallback,omitempty"`
	// Degraded is the last resort, announced as degraded mode (a cheap model).
	Degraded string `toml:"degraded" json:"degraded,omitempty"`
	// ContextWindow is the model's window in tokens (0: a default per known model).
	ContextWindow int `toml:"context_window" json:"contextWindow,omitempty"`
	// Prices are what models charge, by model name, in US dollars per
	// million tokens: input, cached input, output (read through
	// ModelPrice). Config files only: an editor's settings may come from
	// the workspace.
	Prices map[string][]float64 `toml:"prices" json:"-"`
	// Thinking is how hard a reasoning model thinks: "minimal", "low",
	// "medium" or "high" (Gemini 3's thinking level, OpenAI's
	// reasoning_effort); "" is the model's default.
	Thinking string `toml:"thinking" json:"thinking,omitempty"`
	// PlanConfirm shows a plan and waits for the user before its steps run
	// (in the editor; unset means on). A pointer: false must be sayable.
	PlanConfirm *bool `toml:"plan_confirm" json:"planConfirm,omitempty"`
	// Strategy is react (default), plan or reflexion.
	Strategy string `toml:"strategy" json:"strategy,omitempty"`
	// Checks are reflexion's evaluator commands, run in the sandbox.
	Checks    []string `toml:"checks" json:"checks,omitempty"`
	MaxTrials int      `toml:"max_trials" json:"maxTrials,omitempty"`
	// RunTests runs the tests a proposal touches before it is offered
	// (unset means on; read through RunsTests); TestBudgetS bounds them.
	RunTests    *bool `toml:"run_tests" json:"runTests,omitempty"`
	TestBudgetS int   `toml:"test_budget_s" json:"testBudgetS,omitempty"`
	MaxReplans  int   `toml:"max_replans" json:"maxReplans,omitempty"`
	// RetryAttempts and RetryBaseMS (doubled each retry up to 8x) shape the
	// backoff on transient provider failures; their defaults are the
	// table's (Retries, RetryBase).
	RetryAttempts int `toml:"retry_attempts" json:"retryAttempts,omitempty"`
	RetryBaseMS   int `toml:"retry_base_ms" json:"retryBaseMs,omitempty"`
	// SandboxNetwork lets commands in the sandbox use the network (off by
	// default). Only the user's own config file can turn it on: not a project
	// file, even a trusted one, and not LSP settings (json "-"), because
	// editors fill those from the workspace too (VS Code's .vscode/settings.json
	// for settings without a machine scope, Helix's .helix/languages.toml,
	// Neovim's exrc), so a cloned repository could reach the network from a
	// command it got allowed.
	SandboxNetwork NetworkOptIn `toml:"sandbox_network" json:"-"`
	// Completion is code completion as you type, on its own model.
	Completion Completion `toml:"completion" json:"completion,omitzero"`
	// NES is next edit suggestions from the recent edits, on its own model.
	NES NES `toml:"nes" json:"nes,omitzero"`
	// MCP is the MCP servers whose tools the agent may use (see mcp.go).
	MCP MCP `toml:"mcp" json:"mcp,omitzero"`
	// LSP configures the language servers the agent asks ([lsp.NAME],
	// see lsp.go): config files only.
	LSP map[string]LSPServer `toml:"lsp" json:"-"`

	// Keys are API keys by provider name ("openai", "gemini", "groq", …),
	// as agent-lsp setup writes them: the user's own file only, and the
	// environment's variable wins (KeyFor).
	Keys map[string]string `toml:"keys" json:"-"`

	// The keys of OpenAI and Gemini: the environment's, else Keys'.
	OpenAIKey string `toml:"-" json:"-"`
	GeminiKey string `toml:"-" json:"-"`
	// env is Load's environment, where the key of another known provider
	// is read (KeyFor).
	env Env `toml:"-" json:"-"`
}

// Setting is one row of the settings table: everything about a setting but
// its Go field, which carries its toml and json names in its tags. Merging,
// the filter of untrusted layers, the validation of enumerated values,
// README.md's table and the check of the VS Code manifest all come from the
// table; adding a setting is a field and a row.
type Setting struct {
	TOML string // its name in the config files, the field's toml tag
	// JSON is its name in LSP settings (the field's json tag), "" where no
	// editor may set it. Filled in from the tag.
	JSON string
	Env  string // the environment variable that sets it too, if any
	// Default is what applies when no layer sets it, nil when nothing does;
	// an int is also the ceiling an untrusted layer may not go above. Where
	// the consumer has a default of its own (agent.DefaultMaxIterations),
	// Default is that constant: each default is declared once.
	Default any
	// Enum lists the values a string may take; "" (unset) is always allowed.
	Enum []string
	// UserOnly: only the user's own file sets it, never a later layer (a
	// project, trusted or not, an editor, a flag).
	UserOnly bool
	// Untrusted is what an untrusted project file, and a push from an editor
	// that does not mark its settings as the user's, may do with it.
	Untrusted Rule
	Doc       string // one line, for README.md and the VS Code manifest

	field int                                 // the Settings field, by index
	merge func(base *Settings, over Settings) // nil: over's value wins when set
}

// Rule is what an untrusted layer may do with a setting: Says is how
// README.md puts it; filter removes what it may not set and warns.
type Rule struct {
	Says   string
	filter func(r Setting, user Settings, s *Settings, warn func(string, ...any))
}

var (
	// anyone: any layer may set it, trusted or not.
	anyone = Rule{Says: "yes"}
	// userOnly: only the user's file; Merge never takes it from a later layer.
	userOnly = Rule{Says: "no"}
	// lowerOnly: an untrusted layer may lower a limit, not raise it above the
	// user's value, or the default when the user set none.
	lowerOnly = Rule{Says: "lower only", filter: filterLimit}
)

// refused: an untrusted layer may not set it at all; why ends the warning.
func refused(why string) Rule {
	return Rule{Says: "no", filter: func(r Setting, _ Settings, s *Settings, warn func(string, ...any)) {
		if v := r.value(s); isSet(v) {
			warn("%s ignored%s", r.label(), why)
			v.SetZero()
		}
	}}
}

// table is the settings table, in the order README.md lists them.
var table = withFields([]Setting{
	{TOML: "provider", Env: "AGENT_LSP_PROVIDER", Default: ProviderOpenAI,
		Untrusted: Rule{Says: "yours only", filter: filterProvider}, merge: mergeProvider,
		Doc: "Model provider: openai, gemini, or another provider the catalog knows, served on OpenAI's wire (groq, deepseek, openrouter, xai, …; agent-lsp providers lists them)."},
	{TOML: "model", Env: "AGENT_LSP_MODEL", Untrusted: anyone,
		Doc: "Model name, e.g. gpt-4o-mini or gemini-2.5-flash."},
	{TOML: "base_url", Env: "OPENAI_BASE_URL", Untrusted: refused(""),
		Doc: "Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp)."},
	{TOML: "max_iterations", Env: "AGENT_LSP_MAX_ITERATIONS", Default: agent.DefaultMaxIterations, Untrusted: lowerOnly,
		Doc: "Iteration cap of the agent loop."},
	{TOML: "allowlist", Untrusted: refused(""), merge: mergeAllowlist,
		Doc: "Commands the agent may run without asking, added to the built-in read-only list."},
	{TOML: "no_default_allowlist", Default: false, Untrusted: refused(""),
		Doc: "Drop the built-in read-only allowlist."},
	{TOML: "command_timeout_s", Default: int(tools.DefaultCommandTimeout / time.Second), Untrusted: lowerOnly,
		Doc: "Timeout of one command in seconds."},
	{TOML: "max_output", Default: tools.DefaultMaxOutput, Untrusted: lowerOnly,
		Doc: "Bytes of a command's output kept."},
	{TOML: "approval_timeout_s", Default: DefaultApprovalTimeoutS, Untrusted: refused(""),
		Doc: "How long the server waits for the editor's answer to a question (an approval: then Deny) or to an edit it sent (the proposal stays pending), in seconds."},
	{TOML: "trust_project_config", Default: false, UserOnly: true, Untrusted: userOnly,
		Doc: "Let the workspace's .agent-lsp.toml set what widens what happens without asking."},
	{TOML: "auto_apply", Default: false, Untrusted: Rule{Says: "false only", filter: filterAutoApply},
		Doc: "Send proposals to the editor at once even where it cannot preview them."},
	{TOML: "tool_protocol", Env: "AGENT_LSP_TOOL_PROTOCOL", Default: "native", Enum: []string{"native", "json", "text", "auto"}, Untrusted: anyone,
		Doc: "How the model calls tools."},
	{TOML: "fallback", Env: "AGENT_LSP_FALLBACK", Untrusted: Rule{Says: "your provider, no server", filter: filterFallback},
		Doc: "Models to continue on when the primary fails: provider:model[:protocol][@base_url]."},
	{TOML: "degraded", Env: "AGENT_LSP_DEGRADED", Untrusted: Rule{Says: "your provider, no server", filter: filterDegraded},
		Doc: "Last-resort model, announced as degraded mode: provider:model[:protocol][@base_url]."},
	{TOML: "context_window", Default: note("the catalog's, else a guess from the model's name"), Untrusted: lowerOnly,
		Doc: "The model's context window in tokens."},
	{TOML: "prices", Default: note("the catalog's list prices of a known provider's models, none for another server"),
		Untrusted: refused(": a project may not change what the meter says you spend"),
		Doc:       "What models charge, by model name, in US dollars per million tokens, [input, cached input, output] (\"gpt-4.1-mini\" = [0.40, 0.10, 1.60]), for ACP's cost meter."},
	{TOML: "thinking", Env: "AGENT_LSP_THINKING", Enum: []string{"minimal", "low", "medium", "high"},
		Untrusted: refused(": a project may not make the model think (and bill) more"),
		Doc:       "How hard a reasoning model thinks (Gemini 3's thinking level, OpenAI's reasoning_effort)."},
	{TOML: "plan_confirm", Default: true, Untrusted: Rule{Says: "true only", filter: filterPlanConfirm},
		Doc: "Show a plan and wait for Run plan / Cancel before its steps run."},
	{TOML: "strategy", Env: "AGENT_LSP_STRATEGY", Default: "react", Enum: []string{"react", "plan", "reflexion"}, Untrusted: anyone,
		Doc: "How a task is run."},
	{TOML: "checks", Untrusted: refused(": they run without asking"),
		Doc: "Reflexion's evaluator commands (e.g. \"go test ./...\"); they run without asking."},
	{TOML: "max_trials", Default: agent.DefaultMaxTrials, Untrusted: lowerOnly,
		Doc: "Reflexion's trials."},
	{TOML: "run_tests", Default: true, Untrusted: Rule{Says: "true only", filter: filterRunTests},
		Doc: "Run the tests the proposal touches (Go's packages, pytest's files, else checks) in the sandbox before you review it, against the workspace without it."},
	{TOML: "test_budget_s", Default: 60, Untrusted: lowerOnly,
		Doc: "How long the tests the proposal touches may run, in seconds."},
	{TOML: "max_replans", Default: agent.DefaultMaxReplans, Untrusted: lowerOnly,
		Doc: "Plan-and-execute's replans."},
	// More tries and longer waits keep a run (and the user's bill and wait)
	// going against a failing provider.
	{TOML: "retry_attempts", Default: resilience.DefaultMaxAttempts, Untrusted: lowerOnly,
		Doc: "Attempts on a transient provider failure."},
	{TOML: "retry_base_ms", Default: int(resilience.DefaultBase / time.Millisecond), Untrusted: lowerOnly,
		Doc: "First retry delay in milliseconds, doubled each retry."},
	{TOML: "sandbox_network", Default: false, UserOnly: true, Untrusted: userOnly,
		Doc: "Let commands in the sandbox use the network: true, or the workspaces that may (paths or globs)."},
	{TOML: "completion", Untrusted: refused(": it sends what you type to a model as you type"), merge: mergeCompletionRow,
		Doc: "Inline completion (ghost text) as you type, on its own small model; off without a model."},
	{TOML: "nes", Untrusted: refused(": it sends what you type to a model as you type"), merge: mergeNESRow,
		Doc: "Next edit suggestions (textDocument/copilotInlineEdit) from your recent edits, on their own model; off without a model."},
	{TOML: "mcp", Untrusted: Rule{Says: "no", filter: filterMCP}, merge: mergeMCPRow,
		Doc: "MCP servers whose tools the agent may use."},
	{TOML: "keys", UserOnly: true, Untrusted: userOnly,
		Doc: "API keys by provider name (openai = \"sk-…\"), written by `agent-lsp setup` in a file only you can read; the provider's environment variable (OPENAI_API_KEY, GROQ_API_KEY, …) wins."},
	{TOML: "lsp", Untrusted: Rule{Says: "enabled = false only", filter: filterLSP}, merge: mergeLSPRow,
		Doc: "Language servers the agent asks ([lsp.NAME]: command, args, languages, extensions, root_markers, initialization_options, enabled); a project file never names a command."},
})

// Table returns the settings table, in order.
func Table() []Setting { return slices.Clone(table) }

// withFields finds each row's Settings field by its toml tag and takes its
// json name from the field's json tag.
func withFields(rows []Setting) []Setting {
	st := reflect.TypeFor[Settings]()
	for i, r := range rows {
		f, ok := fieldByTOML(st, r.TOML)
		if !ok {
			panic("config: setting " + r.TOML + " has no Settings field")
		}
		rows[i].field = f.Index[0]
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "-" {
			rows[i].JSON = name
		}
	}
	return rows
}

func fieldByTOML(st reflect.Type, name string) (reflect.StructField, bool) {
	for i := range st.NumField() {
		if f := st.Field(i); f.Tag.Get("toml") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// value is the row's field of s, settable.
func (r Setting) value(s *Settings) reflect.Value { return reflect.ValueOf(s).Elem().Field(r.field) }

// label names the setting in warnings: a group as its TOML table.
func (r Setting) label() string {
	if r.Group() {
		return "[" + r.TOML + "]"
	}
	return r.TOML
}

// Group says whether the setting is a group of settings of its own (a TOML
// table, a JSON object), merged and documented by its own code.
func (r Setting) Group() bool {
	return reflect.TypeFor[Settings]().Field(r.field).Type.Kind() == reflect.Struct
}

// Type is the setting's type as README.md and the VS Code manifest name it.
func (r Setting) Type() string {
	switch t := reflect.TypeFor[Settings]().Field(r.field).Type; {
	case t == reflect.TypeFor[NetworkOptIn]():
		return "boolean or list of strings"
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool, t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() == reflect.Int:
		return "integer"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Slice:
		return "list of strings"
	}
	return "table"
}

// isSet says whether a layer set the value: a list or map not empty,
// anything else not zero.
func isSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	case reflect.Int:
		return v.Int() > 0
	}
	return !v.IsZero()
}

// Merge returns base with every setting over sets applied (a non-nil *bool,
// false included; a positive number; a non-empty string or list), each as
// its row says: allowlists add up, a provider takes its base URL along, and
// no later layer sets what only the user's file may.
func Merge(base, over Settings) Settings {
	for _, r := range table {
		switch {
		case r.UserOnly:
		case r.merge != nil:
			r.merge(&base, over)
		case isSet(r.value(&over)):
			r.value(&base).Set(r.value(&over))
		}
	}
	return base
}

func mergeProvider(base *Settings, over Settings) {
	if over.Provider != "" {
		if over.Provider != base.Provider && over.BaseURL == "" {
			base.BaseURL = "" // a base URL belongs to the provider it was set for
		}
		base.Provider = over.Provider
	}
}

func mergeAllowlist(base *Settings, over Settings) {
	for _, a := range over.Allowlist {
		if !slices.Contains(base.Allowlist, a) {
			base.Allowlist = append(base.Allowlist, a)
		}
	}
}

func mergeCompletionRow(base *Settings, over Settings) {
	base.Completion = mergeCompletion(base.Completion, over.Completion)
}

func mergeNESRow(base *Settings, over Settings) { base.NES = mergeNES(base.NES, over.NES) }

func mergeMCPRow(base *Settings, over Settings) { base.MCP = mergeMCP(base.MCP, over.MCP) }

// validateEnums says which enumerated setting has a value it does not take,
// naming the values and where to set them.
func (s Settings) validateEnums() error {
	for _, r := range table {
		if r.Enum == nil {
			continue
		}
		v := r.value(&s).String()
		if v == "" || slices.Contains(r.Enum, v) {
			continue
		}
		where := "use"
		if r.Env != "" {
			where = "set " + r.Env + " to"
		}
		return fmt.Errorf("unknown %s %q: %s %s", r.TOML, v, where, orList(r.Enum))
	}
	return nil
}

// orList writes "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// Layer is where settings come from, the user's own first.
type Layer int

const (
	UserFile         Layer = iota // $XDG_CONFIG_HOME/agent-lsp/config.toml
	TrustedProject                // .agent-lsp.toml, under trust_project_config = true
	UntrustedProject              // .agent-lsp.toml otherwise
	MarkedEditor                  // LSP settings from a client that marks them as the user's
	UnmarkedEditor                // LSP settings from any other client
)

// Layers lists the layers in order.
func Layers() []Layer {
	return []Layer{UserFile, TrustedProject, UntrustedProject, MarkedEditor, UnmarkedEditor}
}

func (l Layer) String() string {
	return [...]string{"user file", "trusted project", "untrusted project", "marked editor", "unmarked editor"}[l]
}

// MaySet says what layer l may do with the setting: "yes", "no", or the
// untrusted rule's limit ("lower only", "false only", …).
func (r Setting) MaySet(l Layer) string {
	switch {
	case l == UserFile:
		return "yes"
	case r.UserOnly, (l == MarkedEditor || l == UnmarkedEditor) && r.JSON == "":
		return "no"
	case l == TrustedProject || l == MarkedEditor:
		return "yes"
	}
	return r.Untrusted.Says
}

// note is a default said in words, where no one value applies.
type note string
