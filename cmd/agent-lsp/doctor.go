package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/catalog"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// listTimeout bounds the models request of `models` and `doctor`.
const listTimeout = 10 * time.Second

// resolved is the configuration a command would run with.
type resolved struct {
	settings config.Settings
	warnings []string
	root     string
}

// resolve loads the settings for the workspace at dir and fills in the
// model as ask does; what it said on the way goes to log.
func resolve(ctx context.Context, dir string, env func(string) string, log io.Writer) (resolved, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return resolved{}, err
	}
	s, warnings, err := config.Load(root, env)
	if err == nil {
		s, err = detectModel(ctx, s, log)
	}
	if err == nil {
		err = s.Validate()
	}
	return resolved{settings: s, warnings: warnings, root: root}, err
}

// listProviderModels asks the configured provider what it serves.
func listProviderModels(ctx context.Context, s config.Settings) ([]string, error) {
	// A model is needed to build the client, not to list.
	s.Model, s.ToolProtocol = cmp.Or(s.Model, "listing"), ""
	p, err := baseProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	lister, ok := p.(llm.ModelLister)
	if !ok {
		return nil, fmt.Errorf("%s cannot list its models", p.Name())
	}
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	return lister.Models(ctx)
}

// models is `agent-lsp models`: what the configured provider serves, the
// one in use marked.
func models(ctx context.Context, args []string, stdout, stderr io.Writer, env func(string) string) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", ".", "the workspace whose configuration to use")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	r, err := resolve(ctx, *workspace, env, stderr)
	if errors.Is(err, errNoModel) {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp models: %v\n", err)
		return exitUsage
	}
	names, err := listProviderModels(ctx, r.settings)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp models: %v\n", err)
		return exitFailed
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, n := range names {
		mark := "  "
		if n == r.settings.Model {
			mark = "* "
		}
		s := r.settings
		s.Model = n
		fmt.Fprintf(w, "%s%s\t%s\n", mark, n, s.Facts())
	}
	w.Flush()
	return exitOK
}

// providersList is `agent-lsp providers`: the providers a config may name,
// with the variable of their key, their address and default model.
func providersList(stdout io.Writer) int {
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "provider\tname\tkey\taddress\tdefault model")
	for _, p := range catalog.Providers() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", p.ID, p.Name, p.KeyEnv, cmp.Or(p.BaseURL, "(its SDK's)"), p.DefaultModel)
	}
	w.Flush()
	return exitOK
}

// check is one line of the doctor's list.
type check struct {
	ok      bool   // false: something to fix
	warn    bool   // works, but worth knowing
	what    string // what was checked, and what was found
	fixHint string
}

func (c check) String() string {
	mark := "ok  "
	switch {
	case !c.ok:
		mark = "FAIL"
	case c.warn:
		mark = "warn"
	}
	s := fmt.Sprintf("[%s] %s", mark, c.what)
	if c.fixHint != "" {
		s += "\n       " + c.fixHint
	}
	return llm.RedactURLs(s) // a base URL's or an MCP server's credentials
}

// doctor is `agent-lsp doctor`: the configuration checked end to end, as a
// short pass/fail list; exit 1 when something fails.
func doctor(ctx context.Context, args []string, stdout, stderr io.Writer, env func(string) string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", ".", "the workspace to check")
	world := fs.Bool("sandbox", false, "print instead the whole world a command of the workspace gets: mounts, environment, limits, filter, network")
	server := fs.String("server", "", "with --sandbox, the world of this language server instead (its command line: gopls, 'pyright-langserver --stdio')")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *server != "" && !*world {
		fmt.Fprintln(stderr, "agent-lsp doctor: --server goes with --sandbox")
		return exitUsage
	}
	if *world {
		return doctorSandbox(*workspace, strings.Fields(*server), stdout, stderr, env)
	}
	checks := doctorChecks(ctx, *workspace, env)
	failed := false
	for _, c := range checks {
		fmt.Fprintln(stdout, c)
		failed = failed || !c.ok
	}
	if failed {
		return exitFailed
	}
	return exitOK
}

func doctorChecks(ctx context.Context, workspace string, env func(string) string) []check {
	var checks []check
	checks = append(checks, configFiles(workspace, env)...)
	r, err := resolve(ctx, workspace, env, io.Discard)
	for _, w := range r.warnings {
		checks = append(checks, check{ok: true, warn: true, what: "ignored: " + w})
	}
	if err != nil {
		checks = append(checks, check{what: "model: " + firstLineOf(err.Error()), fixHint: "see README: Configure a model"})
	} else {
		s := r.settings
		checks = append(checks, check{ok: true, what: fmt.Sprintf("model: %s:%s%s", s.Provider, s.Model, atURL(s.BaseURL))})
		checks = append(checks, reachable(ctx, s)...)
		protocol := s.ToolProtocol
		if protocol == "" {
			protocol = "native"
		}
		checks = append(checks, check{ok: true, what: "tool protocol: " + protocol})
	}
	checks = append(checks, mcpChecks(ctx, r.settings, r.root, env)...)
	checks = append(checks, languageServerChecks(r.settings, r.root)...)
	checks = append(checks, sandboxCheck(), editorsCheck())
	return checks
}

// mcpChecks starts the configured MCP servers as a run would (each within
// its timeout_s), lists their tools and stops them.
func mcpChecks(ctx context.Context, s config.Settings, root string, env func(string) string) []check {
	servers := agentrun.MCPServers(s, root)
	if len(servers) == 0 {
		return nil
	}
	pool := mcp.NewPool(mcp.Options{Env: env, Version: versionString()})
	defer pool.Close()
	pool.Start(ctx, servers)
	var out []check
	for _, st := range pool.Status(servers) {
		where := fmt.Sprintf("MCP server %s (%s: %s; %s config)", st.Name, st.Transport, tools.Printable(st.Target), st.Origin)
		switch st.State {
		case mcp.StateReady:
			c := check{ok: true, what: fmt.Sprintf("%s: ready, %d tool(s): %s", where, len(st.Tools), nameList(st.Tools))}
			if len(st.Allowed) > 0 {
				c.what += "; run without asking: " + nameList(st.Allowed)
			}
			out = append(out, c)
		case mcp.StateDisabled:
			out = append(out, check{ok: true, warn: true, what: where + ": disabled (enabled = false)"})
		default:
			out = append(out, check{what: fmt.Sprintf("%s: %s: %s", where, st.State, tools.Printable(st.Error)),
				fixHint: "check [mcp.servers." + st.Name + "] (README: MCP servers); runs go on without its tools"})
		}
		for _, w := range st.Warnings {
			out = append(out, check{ok: true, warn: true, what: fmt.Sprintf("MCP server %s: %s", st.Name, w)})
		}
	}
	return out
}

// languageServerChecks say, for the servers the workspace looks like it
// uses (and those configured), whether each is installed and how to
// install it; nothing is downloaded.
func languageServerChecks(s config.Settings, root string) []check {
	var out []check
	for _, a := range agentrun.LanguageServers(s).Available(root, slices.Collect(maps.Keys(s.LSP)), exec.LookPath) {
		switch {
		case a.Missing != "":
			out = append(out, check{ok: true, warn: true, what: "language server " + a.Server + ": " + a.Missing})
		case tools.SandboxLevel().ServerNeedsApproval():
			out = append(out, check{ok: true, warn: true, what: "language server " + a.Server + ": " + tools.Printable(a.Path) + " (started in the sandbox when a run needs it, asked first: the sandbox is below level full)"})
		default:
			out = append(out, check{ok: true, what: "language server " + a.Server + ": " + tools.Printable(a.Path) + " (started in the sandbox when a run needs it)"})
		}
	}
	return out
}

// nameList joins names, the first 12 of them.
func nameList(names []string) string {
	if len(names) <= 12 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
}

func configFiles(workspace string, env func(string) string) []check {
	var out []check
	user := filepath.Join(env("XDG_CONFIG_HOME"), "agent-lsp", "config.toml")
	if env("XDG_CONFIG_HOME") == "" {
		user = filepath.Join(env("HOME"), ".config", "agent-lsp", "config.toml")
	}
	for _, f := range []struct{ label, path string }{{"your config", user}, {"project config", filepath.Join(workspace, ".agent-lsp.toml")}, {"project MCP servers", filepath.Join(workspace, ".mcp.json")}} {
		if _, err := os.Stat(f.path); err == nil {
			out = append(out, check{ok: true, what: fmt.Sprintf("%s: %s", f.label, f.path)})
		} else {
			out = append(out, check{ok: true, what: fmt.Sprintf("%s: none (%s)", f.label, f.path)})
		}
	}
	return out
}

// reachable lists the provider's models: that proves the server answers and
// the key is accepted, and says whether the model is there.
func reachable(ctx context.Context, s config.Settings) []check {
	names, err := listProviderModels(ctx, s)
	switch {
	case errors.Is(err, llm.ErrUnauthorized):
		return []check{{what: "provider: the key was refused: " + firstLineOf(err.Error()), fixHint: "check OPENAI_API_KEY / GEMINI_API_KEY"}}
	case err != nil:
		return []check{{what: "provider: not reachable: " + firstLineOf(err.Error()), fixHint: "check the base URL, or that the local server runs"}}
	}
	out := []check{{ok: true, what: fmt.Sprintf("provider: reachable and authorised (%d models)", len(names))}}
	if slices.Contains(names, s.Model) {
		return append(out, check{ok: true, what: "model " + s.Model + " is served"})
	}
	return append(out, check{ok: true, warn: true, what: "model " + s.Model + " is not in the provider's list", fixHint: "agent-lsp models lists them"})
}

func sandboxCheck() check {
	c := tools.SandboxLevel()
	if c.Level == sandbox.Full {
		return check{ok: true, what: "sandbox: " + c.String()}
	}
	return check{ok: true, warn: true, what: "sandbox: " + c.String(), fixHint: "commands that run workspace code will ask first (README: Commands run in a sandbox)"}
}

// doctorSandbox is `agent-lsp doctor --sandbox`: the level, then the
// whole world (sandbox.World) a command of the workspace gets on this
// machine, built as a run's are — from this process's environment, as
// ask's and the server's commands start from it, with the user's
// sandbox_network and command_timeout_s — with the dirs a run makes named
// by placeholders. With server (a language server's argv), the world that
// server gets (sandbox.Start's): no network and no timeout whatever the
// settings.
func doctorSandbox(workspace string, server []string, stdout, stderr io.Writer, env func(string) string) int {
	ws, err := tools.NewWorkspace(workspace, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp doctor: %v\n", err)
		return exitUsage
	}
	defer ws.Close()
	settings, warnings, err := config.Load(ws.Root(), env)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp doctor: %v\n", err)
		return exitUsage
	}
	// The command's spec as a run's is built: the same sandbox options
	// (agentrun.SetSandbox) and builder (tools.Commands.PreviewSpec).
	agentrun.SetSandbox(ws, settings, env("HOME"))
	caps := tools.SandboxLevel()
	spec := ws.PreviewSpec("<command>", settings.CommandTimeout())
	if len(server) > 0 {
		spec = sandbox.Spec{Server: true, Argv: server, Env: os.Environ()}
	}
	world, placeholders, err := sandbox.Preview(caps, ws.Root(), spec)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp doctor: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, "sandbox: "+caps.String())
	for _, p := range placeholders {
		fmt.Fprintf(stdout, "where %s is %s\n", p.Name, fmt.Sprintf(placeholderMeans[p.Name], os.TempDir()))
	}
	if err := world.Format(stdout, placeholders...); err != nil {
		return exitFailed
	}
	return exitOK
}

// placeholderMeans says what each of sandbox.Preview's placeholders stands for.
var placeholderMeans = map[string]string{
	"$VIEW":    "the dir a run makes in %s at its first command: its view of the workspace and its cache",
	"$SCRATCH": "the dir made empty in %s for each command: its home and tmp",
	"$CACHE":   "the language server's own cache, kept for its life, which only it writes (here a stand-in in %s)",
}

// editorsCheck names the editors found and where their set-up is.
func editorsCheck() check {
	var found []string
	for _, e := range []struct{ bin, name string }{{"code", "VS Code (editors/vscode)"}, {"nvim", "Neovim (editors/nvim)"}, {"hx", "Helix (editors/helix)"}, {"emacs", "Emacs"}} {
		if _, err := exec.LookPath(e.bin); err == nil {
			found = append(found, e.name)
		}
	}
	if len(found) == 0 {
		return check{ok: true, what: "editors: none found on PATH", fixHint: "README: In your editor"}
	}
	return check{ok: true, what: fmt.Sprintf("editors: %v", found), fixHint: "set-up for each: README: In your editor"}
}

func atURL(u string) string {
	if u == "" {
		return ""
	}
	return " at " + u
}

func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
