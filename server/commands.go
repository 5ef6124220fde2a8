package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Command names: every command the server offers, under the agent. prefix.
// Clients and their tests name commands by these; the editor plugins'
// tests check the plugins' own names against CommandNames.
const (
	CommandAsk             = "agent.ask"
	CommandApplyProposal   = "agent.applyProposal"
	CommandDiscardProposal = "agent.discardProposal"
	CommandShowProposal    = "agent.showProposal"
	CommandCancel          = "agent.cancel"
	CommandNewSession      = "agent.newSession"
	CommandStatus          = "agent.status"
	CommandListSessions    = "agent.listSessions"
	CommandSwitchSession   = "agent.switchSession"
	CommandForget          = "agent.forget"
	CommandRunPlan         = "agent.runPlan"
	CommandKeepNotes       = "agent.keepNotes"
	CommandApprove         = "agent.approve"
	// CommandAcceptInlineEdit is the command of a suggested next edit: the
	// client runs it once the user accepted (and applied) the edit.
	CommandAcceptInlineEdit = "agent.acceptInlineEdit"
	// CommandSetSessionOptions sets the model and thinking of the next runs.
	CommandSetSessionOptions = "agent.setSessionOptions"
)

// commands is the one list of workspace/executeCommand commands: it feeds
// executeCommandProvider, the dispatch, and the README's command table
// (checked by a test), and the editor plugins are checked against it.
var commands = []command{
	define(CommandAsk, func(s *Server) handler[askArgs, askResult] { return s.runner.ask }, func(a *askArgs, words string) error { a.Prompt = words; return nil },
		"or the prompt as words",
		"starts a run and returns at once (`wait: true` returns when it ends; cancelling that request cancels the run); `proposalId` names the proposal it would make, none in `ask` mode. "+
			"In a session whose run is still going, the new run waits its turn (\"Queued behind run-N\"): both continue one conversation. "+
			"`"+CommandNewSession+"` first for a separate one. `mode`: `ask` reads and answers, changing nothing and running nothing (as *Explain with agent* does), "+
			"`code` (default) or `plan`, as in ACP"),
	define(CommandApplyProposal, func(s *Server) handler[idArgs, applyResult] { return s.proposals.apply }, idWords, "default: the newest pending",
		"sends the proposal as `workspace/applyEdit`"),
	define(CommandDiscardProposal, func(s *Server) handler[idArgs, discardResult] { return s.proposals.discard }, idWords, "default: the newest pending", "drops it"),
	define(CommandShowProposal, func(s *Server) handler[idArgs, showResult] { return s.proposals.show }, idWords, "default: the newest pending",
		"opens its unified diff (`window/showDocument`) and returns it; where the client shows no documents, a message also names each file with its lines added and removed, and the diff file's path"),
	define(CommandApprove, func(s *Server) handler[approveArgs, approveResult] { return s.approvals.approve }, nil, "",
		"answers a run's question to run a command (`decision`: once, always or deny), for editors that cannot answer `window/showMessageRequest`: "+
			"its code actions carry it"),
	define(CommandCancel, func(s *Server) handler[idArgs, cancelResult] { return s.runner.cancel }, idWords, "default: every running run", "cancels a run, killing its commands"),
	define(CommandNewSession, func(s *Server) handler[noArgs, sessionResult] { return s.sessions.newSession }, nil, "",
		"starts a fresh conversation (follow-ups in a session continue it)"),
	define(CommandStatus, func(s *Server) handler[noArgs, statusResult] { return s.status }, nil, "",
		"runs (with notes waiting), proposals, session, settings, notes, circuit breakers, the sandbox level, the language servers (running, or why not: a missing one's install command), the next run's model and thinking, how full the context was at the latest model call, and what is known of the model (`modelFacts`: context window, price, image support)"),
	define(CommandListSessions, func(s *Server) handler[noArgs, sessionsResult] { return s.sessions.listSessions }, nil, "", "stored conversations of this workspace, newest first"),
	define(CommandSwitchSession, func(s *Server) handler[sessionArgs, switchResult] { return s.sessions.switchSession }, func(a *sessionArgs, words string) error { a.ID = words; return nil },
		"", "continue another conversation"),
	define(CommandForget, func(s *Server) handler[forgetArgs, notesResult] { return s.notes.forget }, func(a *forgetArgs, words string) error {
		n, err := strconv.Atoi(words)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a note number (%s lists the notes, from 1)", words, CommandStatus)
		}
		a.Index = n
		return nil
	}, "1-based; without it, every note", "drops a remembered note"),
	define(CommandRunPlan, func(s *Server) handler[idArgs, runPlanResult] { return s.plans.run }, idWords, "default: the plan waiting",
		"runs a plan that waits for the user (the code action \"Run the agent's plan\" where the client can't ask)"),
	define(CommandKeepNotes, func(s *Server) handler[idArgs, keepNotesResult] { return s.notes.keep }, idWords, "a run or its proposal; default: the newest with notes waiting",
		"keeps the notes the agent proposed"),
	define(CommandSetSessionOptions, func(s *Server) handler[setSessionOptionsArgs, sessionOptionsResult] {
		return s.options.setSessionOptions
	}, nil, "",
		"sets the `model` and `thinking` (default, minimal, low, medium, high) of the next runs, over the settings (`\"\"` returns to them; `agent.ask`'s model wins); `agent.status` shows them"),
	define(CommandAcceptInlineEdit, func(s *Server) handler[acceptEditArgs, acceptEditResult] { return s.nextEdits.accept }, nil, "",
		"tells the server the user accepted a next edit suggestion (`uri`, `version`: the one it was suggested for), so the next suggestion builds on it; "+
			"each suggested edit carries it as its command"),
}

// handler is a command's typed handler: its arguments decoded, its result
// to encode.
type handler[A, R any] = func(context.Context, A) (R, error)

// command is one workspace/executeCommand command.
type command struct {
	name         string
	args, result reflect.Type // args is nil for a command without arguments
	argNote, doc string       // for the README
	call         func(s *Server, ctx context.Context, args []protocol.LSPAny) (any, error)
}

// noArgs is the argument type of a command that takes none.
type noArgs struct{}

// define makes a command from the typed handler of picks on a server.
// words, when not nil, takes a bare string argument instead of an object:
// Helix's :lsp-workspace-command passes words.
func define[A, R any](name string, of func(*Server) handler[A, R], words func(*A, string) error, argNote, doc string) command {
	c := command{name: name, result: reflect.TypeFor[R](), argNote: argNote, doc: doc}
	if t := reflect.TypeFor[A](); t != reflect.TypeFor[noArgs]() {
		c.args = t
	}
	c.call = func(s *Server, ctx context.Context, raw []protocol.LSPAny) (any, error) {
		var a A
		if c.args != nil {
			if err := decodeArgs(name, raw, &a, words); err != nil {
				return nil, err
			}
		}
		return of(s)(ctx, a)
	}
	return c
}

func idWords(a *idArgs, words string) error { a.ID = words; return nil }

// decodeArgs decodes a command's first argument into v, or, when it is a
// string and the command takes words, all its string arguments joined.
func decodeArgs[A any](name string, args []protocol.LSPAny, v *A, words func(*A, string) error) error {
	if len(args) == 0 || noArguments(args[0]) {
		return nil
	}
	var str string
	if json.Unmarshal(args[0], &str) == nil && words != nil {
		var all []string
		for _, a := range args {
			var w string
			if json.Unmarshal(a, &w) == nil {
				all = append(all, w)
			}
		}
		if err := words(v, strings.Join(all, " ")); err != nil {
			return jsonrpc2.NewError(jsonrpc2.InvalidParams, name+": "+err.Error())
		}
		return nil
	}
	if err := json.Unmarshal(args[0], v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: invalid arguments: %v", name, err))
	}
	return nil
}

// noArguments says an argument stands for none: null, or an empty array —
// what Neovim sends for the empty Lua table {} it cannot tell from a list.
func noArguments(arg protocol.LSPAny) bool {
	var list []json.RawMessage
	return string(bytes.TrimSpace(arg)) == "null" || (json.Unmarshal(arg, &list) == nil && len(list) == 0)
}

// CommandNames are the names of every command the server offers, as
// initialize lists them in executeCommandProvider.
func CommandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

func (s *Server) executeCommand(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.ExecuteCommandParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	for _, c := range commands {
		if c.name == params.Command {
			result, err := c.call(s, ctx, params.Arguments)
			return displayResult(result), err
		}
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q; commands: %s", params.Command, strings.Join(CommandNames(), ", ")))
}

// codeRequestFailed answers a valid request that failed.
const codeRequestFailed = jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)
