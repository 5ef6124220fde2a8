package server

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/documents"
)

// Code actions only list: no model is called here or in codeAction/resolve
// (editors time those out). An action carries the command that runs when the
// user picks it, or, for a prompt template, the edit that inserts it. The
// code-action menu is the one UI every LSP client has, so everything the
// user decides (apply, show, discard, cancel) is reachable from it too.

// maxInstructionScanLines bounds the lines scanned for instruction comments.
const maxInstructionScanLines = 500

// Instruction comments: "AGENT: do this" (or "AGENT PLAN: …" to plan first)
// after any comment marker, or a comment ending with "AI!" (aider's
// convention). This is how a user of an editor without an input box gives a
// prompt.
var (
	agentComment  = regexp.MustCompile(`(?://+|#+|--+|;+|/\*+|<!--|%+|\(\*|^\s*\*+|^\s*'|^\s*")\s*AGENT( PLAN)?:\s*(.*?)\s*(?:\*/|-->|\*\))?\s*$`)
	aiBangComment = regexp.MustCompile(`(?://+|#+|--+|;+|/\*+|<!--|%+|\(\*)\s*(.*?)\s*AI!\s*(?:\*/|-->|\*\))?\s*$`)
)

// instruction returns the instruction a line carries, if any, and whether
// it asks for a plan.
func instruction(line string) (text string, plan, ok bool) {
	// Most lines hold neither word: skip the regexps' backtracking for them.
	if !strings.Contains(line, "AGENT") && !strings.Contains(line, "AI!") {
		return "", false, false
	}
	if m := agentComment.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[2]) != "" {
		return m[2], m[1] != "", true
	}
	if m := aiBangComment.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[1]) != "" {
		return m[1], false, true
	}
	return "", false, false
}

// actionList collects the actions of the kinds the client asked for.
type actionList struct {
	only    []protocol.CodeActionKind
	actions []protocol.CommandOrCodeAction
}

func (l *actionList) wanted(k protocol.CodeActionKind) bool {
	if len(l.only) == 0 {
		return true
	}
	return slices.ContainsFunc(l.only, func(only protocol.CodeActionKind) bool {
		return k == only || strings.HasPrefix(string(k), string(only)+".")
	})
}

// command adds an action that runs command with arg (nil: none).
func (l *actionList) command(title string, kind protocol.CodeActionKind, command string, arg any, diags []protocol.Diagnostic) {
	if !l.wanted(kind) {
		return
	}
	cmd := protocol.Command{Title: title, Command: command}
	if arg != nil {
		raw, _ := json.Marshal(arg)
		cmd.Arguments = []protocol.LSPAny{raw}
	}
	l.actions = append(l.actions, &protocol.CodeAction{Title: title, Kind: &kind, Diagnostics: diags, Command: cmd})
}

// edit adds an action that applies edit.
func (l *actionList) edit(title string, kind protocol.CodeActionKind, edit protocol.WorkspaceEdit) {
	if l.wanted(kind) {
		l.actions = append(l.actions, &protocol.CodeAction{Title: title, Kind: &kind, Edit: &edit})
	}
}

func (s *Server) codeAction(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.CodeActionParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	at := actionContext{uri: params.TextDocument.URI, rng: params.Range, caps: s.caps.get(), diagnostics: params.Context.Diagnostics}
	at.doc, at.open = s.docs.Get(at.uri)
	l := &actionList{only: params.Context.Only}
	for _, src := range s.actionSources {
		s.collect(l, src, at)
	}
	return l.actions, nil
}

// actionContext is what the sources of code actions read: the request and
// the document.
type actionContext struct {
	uri         uri.URI
	rng         protocol.Range
	caps        clientCaps
	diagnostics []protocol.Diagnostic
	doc         documents.Document
	open        bool
}

// actionSource lists one group of code actions.
type actionSource struct {
	name string
	list func(l *actionList, at actionContext)
}

// codeActionSources are the groups of code actions, in the menu's order:
// what waits for the user first, in every file.
func (s *Server) codeActionSources() []actionSource {
	return []actionSource{
		{"decisions", func(l *actionList, _ actionContext) { s.decisionActions(l) }},
		{"next edit", s.nextEdits.actions},
		{"instruction comments", instructionActions},
		{"diagnostics", diagnosticActions},
		{"ask", askActions},
		{"tasks", taskActions},
		{"notes", s.notes.actions},
	}
}

// collect adds src's actions to l. A source that panics adds none, and the
// others still list: one broken source must not take away every action
// (approvals, Apply, Cancel).
func (s *Server) collect(l *actionList, src actionSource, at actionContext) {
	n := len(l.actions)
	defer func() {
		if r := recover(); r != nil {
			l.actions = l.actions[:n]
			s.log.Error("panic listing code actions", "source", src.name, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	src.list(l, at)
}

// instructionActions offers the instruction comments on the lines in range.
func instructionActions(l *actionList, at actionContext) {
	if !at.open {
		return
	}
	rng := at.rng
	last := min(rng.End.Line, rng.Start.Line+maxInstructionScanLines)
	lineStart, _ := documents.LineBounds(at.doc.Text, rng.Start.Line)
	text := at.doc.Text[lineStart:]
	for line := rng.Start.Line; line <= last && text != ""; line++ {
		l1 := text
		if nl := strings.IndexByte(text, '\n'); nl >= 0 {
			l1, text = text[:nl], text[nl+1:]
		} else {
			text = ""
		}
		if instr, plan, ok := instruction(l1); ok {
			lineRange := protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line + 1}}
			args := askArgs{
				Prompt: instr, URI: at.uri, Range: &lineRange, InstructionLine: line + 1,
			}
			title := "Agent: " + summarize(instr, 70)
			if plan {
				args.Strategy, title = "plan", "Agent (plan first): "+summarize(instr, 60)
			}
			l.command(title, protocol.CodeActionKindRefactorRewrite, CommandAsk, args, nil)
		}
	}
}

// diagnosticActions offers to fix each diagnostic in the request.
func diagnosticActions(l *actionList, at actionContext) {
	for _, d := range at.diagnostics {
		msg := diagnosticMessage(d)
		l.command("Fix with agent: "+summarize(msg, 70), protocol.CodeActionKindQuickFix, CommandAsk, askArgs{
			Prompt: "Fix this problem: " + msg, URI: at.uri, Range: &d.Range,
			Diagnostics: []diagnosticArg{{Line: d.Range.Start.Line, Message: msg}},
		}, []protocol.Diagnostic{d})
	}
}

// askActions offers to ask the agent: with the client's prompt box, or
// where it has none, through an instruction comment inserted to write in.
func askActions(l *actionList, at actionContext) {
	r := at.rng
	if at.caps.promptInput {
		l.command("Ask agent…", protocol.CodeActionKindRefactorRewrite, CommandAsk, askArgs{URI: at.uri, Range: &r}, nil)
		l.command("Plan with agent…", protocol.CodeActionKindRefactorRewrite, CommandAsk, askArgs{URI: at.uri, Range: &r, Strategy: "plan"}, nil)
		return
	}
	if !at.open {
		return
	}
	// The client has no box to type a prompt in: the file is the box.
	start, end := documents.LineBounds(at.doc.Text, r.Start.Line)
	spot := templateSpot{doc: at.doc, line: r.Start.Line, start: start, end: end}
	l.edit("Ask agent… (inserts an AGENT: comment to write the request in)", protocol.CodeActionKindRefactorRewrite,
		spot.insert("AGENT: ", at.caps))
	l.edit("Plan with agent… (inserts an AGENT PLAN: comment)", protocol.CodeActionKindRefactorRewrite,
		spot.insert("AGENT PLAN: ", at.caps))
}

// taskActions offers the agent's ready-made tasks for the range and the file.
func taskActions(l *actionList, at actionContext) {
	u, r := at.uri, at.rng
	l.command("Explain with agent", protocol.CodeActionKindRefactorRewrite, CommandAsk, askArgs{Prompt: "Explain what this code does, and point out anything surprising.", Mode: string(agentrun.ModeAsk), URI: u, Range: &r}, nil)
	l.command("Write tests with agent", protocol.CodeActionKindRefactorRewrite, CommandAsk, askArgs{Prompt: "Write tests for this code, following the project's existing test conventions.", URI: u, Range: &r}, nil)
	l.command("Document with agent", protocol.CodeActionKindRefactorRewrite, CommandAsk, askArgs{Prompt: "Write documentation comments for this code in the language's usual style. Change no behaviour.", URI: u, Range: &r}, nil)
	l.command("Review file with agent", protocol.CodeActionKindSource, CommandAsk, askArgs{Prompt: "Review this file: list bugs, risks and unclear code, most important first. Change nothing.", URI: u}, nil)
}

// decisionActions offers what waits for the user: the newest pending
// proposal (apply, show, discard), a plan waiting to run, and cancelling
// the runs still going.
func (s *Server) decisionActions(l *actionList) {
	s.approvals.actions(l)
	kind := protocol.CodeActionKindSource
	if p, err := s.runs.proposal(""); err == nil {
		id := idArgs{ID: p.name()}
		if caps := s.caps.get(); caps.applyEdit {
			l.command(fmt.Sprintf("Apply agent proposal (%d file(s), %s)", len(p.changes), p.name()), kind, CommandApplyProposal, id, nil)
		} else {
			s.proposals.applyActions(l, p, caps, kind)
		}
		l.command("Show agent proposal ("+p.name()+")", kind, CommandShowProposal, id, nil)
		l.command("Discard agent proposal ("+p.name()+")", kind, CommandDiscardProposal, id, nil)
	}
	if r := s.plans.waiting(""); r != nil {
		l.command("Run the agent's plan ("+r.name()+")", kind, CommandRunPlan, idArgs{ID: r.name()}, nil)
	}
	if r := s.runs.newest(func(r *run) bool { return r.state() == runRunning }); r != nil {
		l.command("Cancel agent run ("+r.name()+": "+summarize(r.request, 40)+")", kind, CommandCancel, idArgs{ID: r.name()}, nil)
	}
}

// templateSpot is where an instruction template goes: above line, whose
// bytes are doc.Text[start:end].
type templateSpot struct {
	doc        documents.Document
	line       uint32
	start, end int
}

// insert is the edit that inserts an empty instruction comment above the
// line, in the file's comment syntax and the line's indentation, for the
// user to write the request in and then pick its "Agent: …" action.
func (at templateSpot) insert(label string, caps clientCaps) protocol.WorkspaceEdit {
	text := at.doc.Text[at.start:at.end]
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	open, close := commentSyntax(at.doc.Language, at.doc.Path)
	comment := indent + open + " " + label
	if close != "" {
		comment += " " + close
	}
	pos := protocol.Position{Line: at.line}
	edit := protocol.TextEdit{Range: protocol.Range{Start: pos, End: pos}, NewText: comment + "\n"}
	if at.start == len(at.doc.Text) && at.doc.Text != "" && !strings.HasSuffix(at.doc.Text, "\n") {
		// Past the last line of a file without a final newline: start one.
		pos = caps.encoding.Position(at.doc.Text, len(at.doc.Text))
		edit = protocol.TextEdit{Range: protocol.Range{Start: pos, End: pos}, NewText: "\n" + comment}
	}
	if caps.documentChanges {
		version := at.doc.Version
		return protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{textDocumentEdit(at.doc.URI, &version, []protocol.TextEdit{edit}, "")}}
	}
	return protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{at.doc.URI: {edit}}}
}

// codeActionResolve returns the action as it is: actions are complete when listed.
func (s *Server) codeActionResolve(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var action protocol.CodeAction
	if err := decode(raw, &action); err != nil {
		return nil, err
	}
	return &action, nil
}

func diagnosticMessage(d protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return "diagnostic"
}
