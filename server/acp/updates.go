package acp

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// outputLimit bounds the text of a tool's output shown in a tool call.
const outputLimit = 16 << 10

// event turns one step of the run into session updates. It runs on the
// loop's goroutine, or a tool's for concurrent reads.
func (t *turn) event(e agent.Event) {
	switch e.Kind {
	case agent.EventIteration:
		if e.Scope == "" {
			t.emu.Lock()
			t.streamed.Reset()
			t.reasoned.Reset()
			t.emu.Unlock()
			t.nextMessage()
		}
	case agent.EventTextDelta:
		// The top-level loop's text is the answer; a plan step's, a
		// trial's or a sub-agent's is the agent at work.
		if e.Scope != "" {
			t.send(sdk.UpdateAgentThoughtText(e.Text))
			return
		}
		t.emu.Lock()
		t.streamed.WriteString(e.Text)
		t.emu.Unlock()
		t.send(sdk.UpdateAgentMessageText(e.Text))
	case agent.EventReasoningDelta:
		if e.Scope == "" {
			t.emu.Lock()
			t.reasoned.WriteString(e.Text)
			t.emu.Unlock()
		}
		t.send(sdk.UpdateAgentThoughtText(e.Text))
	case agent.EventThought:
		if e.Scope != "" {
			return
		}
		// What the provider streamed went out as it came; what it did not
		// (a JSON tool protocol, a non-streaming server, the end of a
		// stream that stopped early) goes out now. Never twice: clients
		// append chunks.
		t.emu.Lock()
		text, reasoning := unsent(e.Text, t.streamed.String()), unsent(e.Reasoning, t.reasoned.String())
		t.emu.Unlock()
		if strings.TrimSpace(reasoning) != "" {
			t.send(sdk.UpdateAgentThoughtText(reasoning))
		}
		t.message(text)
	case agent.EventUsage:
		t.usage(e)
	case agent.EventToolCall:
		if e.Call.Name == agent.PlanToolName {
			t.checklist(e)
			return
		}
		t.toolStarted(e)
	case agent.EventToolOutput:
		t.toolOutput(e)
	case agent.EventToolResult:
		t.toolEnded(e)
	case agent.EventNotice:
		t.send(sdk.UpdateAgentThoughtText("\n[agent-lsp] " + scoped(e.Scope, e.Text) + "\n"))
	case agent.EventPlan:
		if e.Scope == "" {
			t.planMade(e.Text)
		}
	case agent.EventStart:
		if step, ok := planStep(e.Scope); ok {
			t.stepStarted(step)
		}
		if strings.HasPrefix(e.Scope, "trial ") && !strings.Contains(e.Scope, "›") {
			// A reflexion trial starts over from the original files.
			t.emu.Lock()
			clear(t.shown)
			t.emu.Unlock()
		}
	case agent.EventDone:
		if e.Scope == "" {
			t.planDone()
		}
	}
}

// unsent is what of a model's whole text the client has not been sent,
// given what was streamed of it: all of it when nothing was, the rest when
// the stream was its beginning, and nothing when the stream differs from
// it (a text tool protocol streams the call lines it then takes out):
// sent chunks cannot be taken back, and sending it again would show it twice.
func unsent(whole, streamed string) string {
	if rest, ok := strings.CutPrefix(whole, streamed); ok {
		return rest
	}
	return ""
}

func scoped(scope, text string) string {
	if scope == "" {
		return text
	}
	return scope + " · " + text
}

func callKey(e agent.Event) string { return e.Scope + "\x00" + e.Call.ID }

func (t *turn) toolStarted(e agent.Event) {
	title, kind, locs := describeCall(e.Call, t.ws)
	title = scoped(e.Scope, title)
	t.emu.Lock()
	c := &shownCall{id: t.newCallIDLocked("call"), title: title, kind: kind, seq: t.seq}
	terminal := false
	if e.Call.Name == "execute_command" {
		c.command = argString(e.Call.Args, "command")
		terminal = terminalForm(t.caps)
		c.out = &liveOutput{t: t, id: c.id, terminal: terminal}
	}
	t.calls[callKey(e)] = c
	t.emu.Unlock()
	id := c.id
	u := sdk.StartToolCall(id, title,
		sdk.WithStartKind(kind), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
		sdk.WithStartLocations(locs), sdk.WithStartRawInput(rawArgs(e.Call.Args)))
	if terminal {
		u = terminalStart(u, id, t.ws.Root())
	}
	t.send(u)
}

func (t *turn) toolEnded(e agent.Event) {
	t.emu.Lock()
	c, ok := t.calls[callKey(e)]
	delete(t.calls, callKey(e))
	t.emu.Unlock()
	if !ok {
		return
	}
	id := c.id
	status := sdk.ToolCallStatusCompleted
	if e.Result.IsError {
		status = sdk.ToolCallStatusFailed
	}
	content := t.diffOf(e)
	if content == nil {
		content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(resultText(e.Call.Name, e.Result)))}
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)}
	if c.out != nil {
		c.out.end()
		if c.out.terminal {
			// The terminal stays, with the result (exit code, the model's cut) below it.
			opts[1] = sdk.WithUpdateContent(append([]sdk.ToolCallContent{sdk.ToolTerminalRef(string(id))}, content...))
			opts = append(opts, withMeta(map[string]any{"terminal_exit": map[string]any{"terminal_id": string(id), "exit_code": exitCode(e.Result), "signal": nil}}))
		}
	}
	t.send(sdk.UpdateToolCall(id, opts...))
}

// diffOf shows a successful edit as a diff of the file before this call
// and after it (the whole staged text: nothing is written yet).
func (t *turn) diffOf(e agent.Event) []sdk.ToolCallContent {
	if e.Result.IsError || (e.Call.Name != "edit_file" && e.Call.Name != "write_file") {
		return nil
	}
	_, rel, err := t.ws.Resolve(argString(e.Call.Args, "path"))
	if err != nil {
		return nil
	}
	for _, c := range t.ws.Changes() {
		if c.Path != rel {
			continue
		}
		t.emu.Lock()
		before, seen := t.shown[rel]
		t.shown[rel] = c.New
		t.emu.Unlock()
		switch {
		case seen:
			return []sdk.ToolCallContent{sdk.ToolDiffContent(c.AbsPath, c.New, before)}
		case c.Existed:
			return []sdk.ToolCallContent{sdk.ToolDiffContent(c.AbsPath, c.New, c.Original)}
		}
		return []sdk.ToolCallContent{sdk.ToolDiffContent(c.AbsPath, c.New)}
	}
	return nil
}

// resultText is a tool's output as shown: command output and listings in
// a code block, cut past outputLimit.
func resultText(tool string, r llm.ToolResult) string {
	text := cut(r.Content, outputLimit)
	switch tool {
	case "execute_command", "read_file", "search", "list_files":
		return fenced(text)
	}
	return text
}

// resolver confines a path the model gave; *tools.Workspace is one.
type resolver interface {
	Resolve(p string) (abs, rel string, err error)
}

// describeCall gives a tool call's title, kind and locations, as the tool
// presents itself (tools.Show). A path that leaves the workspace gets no
// location (the client would open it) and is shown as the model gave it.
func describeCall(c llm.ToolCall, r resolver) (string, sdk.ToolKind, []sdk.ToolCallLocation) {
	name := func(p string) string {
		if _, rel, err := r.Resolve(p); err == nil {
			return tools.Printable(rel)
		}
		return tools.Printable(p)
	}
	shown := tools.Show(c.Name, c.Args, name)
	var locs []sdk.ToolCallLocation
	if shown.Located {
		if abs, _, err := r.Resolve(shown.Path); err == nil {
			loc := sdk.ToolCallLocation{Path: abs}
			// The line is 1-based; a location's line is a 0-based row (as Zed reads it).
			if shown.Line > 1 {
				loc.Line = sdk.Ptr(shown.Line - 1)
			}
			locs = []sdk.ToolCallLocation{loc}
		}
	}
	return shown.Title, sdk.ToolKind(shown.Kind), locs
}

func argString(args json.RawMessage, key string) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// rawArgs is the call's input as JSON when it is JSON (a malformed one,
// which the registry will refuse, as a string).
func rawArgs(args json.RawMessage) any {
	if len(args) > 0 && json.Valid(args) {
		return args
	}
	return string(args)
}

// The plan strategy's steps reach us as text ("1. goal (done when: …)"),
// replans as "Replanned after step N failed …" and the remaining steps
// numbered on from there; steps run with scope "step K/N".
var (
	planLineRE = regexp.MustCompile(`^(\d+)\. (.*?)(?: \(done when: .*\))?$`)
	replanRE   = regexp.MustCompile(`^Replanned after step (\d+) failed`)
	stepRE     = regexp.MustCompile(`^step (\d+)/\d+$`)
)

func planStep(scope string) (int, bool) {
	m := stepRE.FindStringSubmatch(scope)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// checklist shows the model's update_plan as the plan, in any mode, unless
// the plan strategy's steps are the plan. Malformed steps show nothing:
// the model is told why.
func (t *turn) checklist(e agent.Event) {
	steps, err := agent.ParseChecklist(e.Call.Args)
	if err != nil {
		return
	}
	t.emu.Lock()
	strategy := t.strategyPlan
	t.emu.Unlock()
	if strategy {
		return
	}
	entries := make([]sdk.PlanEntry, len(steps))
	for i, s := range steps {
		entries[i] = sdk.PlanEntry{Content: s.Step, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatus(s.Status)}
	}
	t.send(sdk.UpdatePlan(entries...))
}

// planMade replaces the steps from the first one the text numbers on; the
// earlier ones keep their state (a replan keeps what was done).
func (t *turn) planMade(text string) {
	t.emu.Lock()
	t.strategyPlan = true
	first := true
	for _, line := range strings.Split(text, "\n") {
		if m := replanRE.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				t.failed[n] = true
			}
			continue
		}
		m := planLineRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(t.plan)+1 {
			continue
		}
		if first {
			t.plan, first = t.plan[:n-1], false
		}
		if n == len(t.plan)+1 {
			t.plan = append(t.plan, sdk.PlanEntry{Content: m[2], Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
		}
	}
	t.markFailed()
	entries := append([]sdk.PlanEntry(nil), t.plan...)
	t.emu.Unlock()
	t.send(sdk.UpdatePlan(entries...))
}

// markFailed notes the failed steps in their text: a plan entry has no
// failed state. emu held.
func (t *turn) markFailed() {
	for n := range t.failed {
		if n <= len(t.plan) && !strings.HasPrefix(t.plan[n-1].Content, "✗ ") {
			t.plan[n-1].Content = "✗ " + t.plan[n-1].Content + " (failed)"
			t.plan[n-1].Status = sdk.PlanEntryStatusCompleted
		}
	}
}

// stepStarted marks step n in progress and the ones before it done.
func (t *turn) stepStarted(n int) {
	t.emu.Lock()
	if n > len(t.plan) {
		t.emu.Unlock()
		return
	}
	for i := range t.plan[:n-1] {
		t.plan[i].Status = sdk.PlanEntryStatusCompleted
	}
	t.plan[n-1].Status = sdk.PlanEntryStatusInProgress
	entries := append([]sdk.PlanEntry(nil), t.plan...)
	t.emu.Unlock()
	t.send(sdk.UpdatePlan(entries...))
}

// planDone marks the steps that ran done when the run ends.
func (t *turn) planDone() {
	t.emu.Lock()
	changed := false
	for i := range t.plan {
		if t.plan[i].Status == sdk.PlanEntryStatusInProgress {
			t.plan[i].Status, changed = sdk.PlanEntryStatusCompleted, true
		}
	}
	entries := append([]sdk.PlanEntry(nil), t.plan...)
	t.emu.Unlock()
	if changed {
		t.send(sdk.UpdatePlan(entries...))
	}
}
