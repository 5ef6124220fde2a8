package server

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Code actions only list: no model is called here or in codeAction/resolve
// (editors time those out). Each action carries an agent.ask command that runs
// when the user picks it.

// maxInstructionScanLines bounds the lines scanned for instruction comments.
const maxInstructionScanLines = 500

// Instruction comments: "AGENT: do this" after any comment marker, or a
// comment ending with "AI!" (aider's convention). This is how a Helix user,
// who has no input box, gives a prompt.
var (
	agentComment  = regexp.MustCompile(`(?://+|#+|--+|;+|/\*+|<!--|%+|^\s*\*+|^\s*')\s*AGENT:\s*(.*?)\s*(?:\*/|-->)?\s*$`)
	aiBangComment = regexp.MustCompile(`(?://+|#+|--+|;+|/\*+|<!--|%+)\s*(.*?)\s*AI!\s*(?:\*/|-->)?\s*$`)
)

// instruction returns the instruction a line carries, if any.
func instruction(line string) (string, bool) {
	if m := agentComment.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[1]) != "" {
		return m[1], true
	}
	if m := aiBangComment.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[1]) != "" {
		return m[1], true
	}
	return "", false
}

func (s *Server) codeAction(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.CodeActionParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	u := params.TextDocument.URI
	rng := params.Range
	wanted := func(k protocol.CodeActionKind) bool {
		if len(params.Context.Only) == 0 {
			return true
		}
		return slices.ContainsFunc(params.Context.Only, func(only protocol.CodeActionKind) bool {
			return k == only || strings.HasPrefix(string(k), string(only)+".")
		})
	}
	var actions []protocol.CommandOrCodeAction
	add := func(title string, kind protocol.CodeActionKind, args askArgs, diags []protocol.Diagnostic) {
		if !wanted(kind) {
			return
		}
		a := &protocol.CodeAction{Title: title, Kind: &kind, Diagnostics: diags, Command: askCommand(title, args)}
		actions = append(actions, a)
	}

	// Instruction comments on the lines in range.
	if doc, ok := s.docs.get(u); ok {
		last := min(rng.End.Line, rng.Start.Line+maxInstructionScanLines)
		start, _ := lineBounds(doc.text, rng.Start.Line)
		text := doc.text[start:]
		for line := rng.Start.Line; line <= last && text != ""; line++ {
			l := text
			if nl := strings.IndexByte(text, '\n'); nl >= 0 {
				l, text = text[:nl], text[nl+1:]
			} else {
				text = ""
			}
			if instr, ok := instruction(l); ok {
				lineRange := protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line + 1}}
				add("Agent: "+summarize(instr, 70), protocol.CodeActionKindRefactorRewrite, askArgs{
					Prompt: instr + fmt.Sprintf("\n\n(This instruction is the comment on line %d. Carry it out, then remove that instruction comment.)", line+1),
					URI:    u, Range: &lineRange,
				}, nil)
			}
		}
	}
	for _, d := range params.Context.Diagnostics {
		msg := diagnosticMessage(d)
		add("Fix with agent: "+summarize(msg, 70), protocol.CodeActionKindQuickFix, askArgs{
			Prompt: "Fix this problem: " + msg, URI: u, Range: &d.Range,
			Diagnostics: []diagnosticArg{{Line: d.Range.Start.Line, Message: msg}},
		}, []protocol.Diagnostic{d})
	}
	r := rng
	add("Ask agent…", protocol.CodeActionKindRefactorRewrite, askArgs{URI: u, Range: &r}, nil)
	add("Plan with agent…", protocol.CodeActionKindRefactorRewrite, askArgs{URI: u, Range: &r, Strategy: "plan"}, nil)
	add("Explain with agent", protocol.CodeActionKindRefactorRewrite, askArgs{Prompt: "Explain what this code does, and point out anything surprising.", URI: u, Range: &r}, nil)
	add("Write tests with agent", protocol.CodeActionKindRefactorRewrite, askArgs{Prompt: "Write tests for this code, following the project's existing test conventions.", URI: u, Range: &r}, nil)
	add("Document with agent", protocol.CodeActionKindRefactorRewrite, askArgs{Prompt: "Write documentation comments for this code in the language's usual style. Change no behaviour.", URI: u, Range: &r}, nil)
	add("Review file with agent", protocol.CodeActionKindSource, askArgs{Prompt: "Review this file: list bugs, risks and unclear code, most important first. Change nothing.", URI: u}, nil)
	// A plan waiting for the user where the client could not ask (Helix).
	if r := s.planWaiting(""); r != nil && wanted(protocol.CodeActionKindSource) {
		kind := protocol.CodeActionKindSource
		title := "Run the agent's plan (" + r.name() + ")"
		arg, _ := json.Marshal(idArgs{ID: r.name()})
		actions = append(actions, &protocol.CodeAction{Title: title, Kind: &kind, Command: protocol.Command{Title: title, Command: cmdRunPlan, Arguments: []protocol.LSPAny{arg}}})
	}
	// Notes the agent proposed wait for the user; Helix has no other way in.
	if _, err := s.notesRun(""); err == nil && wanted(protocol.CodeActionKindSource) {
		kind := protocol.CodeActionKindSource
		title := "Keep the agent's notes"
		actions = append(actions, &protocol.CodeAction{Title: title, Kind: &kind, Command: protocol.Command{Title: title, Command: cmdKeepNotes}})
	}
	return actions, nil
}

// codeActionResolve returns the action as it is: actions are complete when listed.
func (s *Server) codeActionResolve(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var action protocol.CodeAction
	if err := decode(raw, &action); err != nil {
		return nil, err
	}
	return &action, nil
}

func askCommand(title string, args askArgs) protocol.Command {
	raw, _ := json.Marshal(args)
	return protocol.Command{Title: title, Command: cmdAsk, Arguments: []protocol.LSPAny{raw}}
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
