package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// Prompt runs one turn. Its answer comes when the run ends, or at once
// with "cancelled" when session/cancel arrives (the SDK cancels ctx): the
// run's goroutine then unwinds (its commands killed) while the prompt is
// already answered, and the session's next turn waits for it.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (resp sdk.PromptResponse, err error) {
	defer guard(a.log, "session/prompt", &err)
	s, err := a.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	if name, input, ok := s.slashCommand(p.Prompt); ok {
		next, err := a.command(ctx, s, name, input)
		if err != nil || next == "" {
			return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, err
		}
		p.Prompt = append([]sdk.ContentBlock{sdk.TextBlock(next)}, p.Prompt[1:]...)
	}
	prompt, known, images, err := s.taskFrom(p.Prompt)
	if err != nil {
		return resp, err
	}
	select {
	case s.busy <- struct{}{}:
	case <-ctx.Done():
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	runCtx, cancel := context.WithCancel(ctx)
	t, err := a.startTurn(runCtx, s, cancel, known)
	if err != nil {
		cancel()
		<-s.busy
		return resp, err
	}
	done := make(chan turnResult, 1)
	if !a.addTurn() {
		s.endTurn(t)
		cancel()
		<-s.busy
		return cancelled(resp), nil
	}
	go func() {
		defer func() {
			s.endTurn(t)
			cancel()
			<-s.busy
			a.running.Done()
		}()
		r := turnResult{}
		r.resp, r.err = t.run(prompt, images)
		done <- r
		// Saved while the answer goes out; the session's next turn waits for it.
		if err := s.save(); err != nil {
			a.log.Warn("acp: saving the session", "session", s.id, "error", err)
		}
	}()
	select {
	case r := <-done:
		t.finish()
		r.resp.UserMessageId = userMessageID(p.MessageId)
		return r.resp, r.err
	case <-ctx.Done():
		t.finish()
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
}

// command runs a slash command between turns and shows its answer; next
// is the turn it asks for ("" for none).
func (a *Agent) command(ctx context.Context, s *session, name, input string) (next string, err error) {
	select {
	case s.busy <- struct{}{}:
	case <-ctx.Done():
		return "", nil
	}
	defer func() { <-s.busy }()
	answer, next, err := a.runCommand(ctx, s, name, input)
	if err != nil {
		return "", err
	}
	if answer != "" {
		a.update(s, sdk.UpdateAgentMessageText(answer+"\n\n"))
	}
	return next, nil
}

// userMessageID is the prompt's message id as the client gave it, or ours.
func userMessageID(given *string) *string {
	if given != nil && *given != "" {
		return given
	}
	return sdk.Ptr(newMessageID())
}

type turnResult struct {
	resp sdk.PromptResponse
	err  error
}

// run is the turn's work on its own goroutine: the settings and the model,
// the workspace view, the agent's run with its events as updates, then the
// proposal offered to the client.
func (t *turn) run(prompt string, images []llm.Image) (resp sdk.PromptResponse, err error) {
	defer guard(t.a.log, "session/prompt", &err)
	ctx, s := t.ctx, t.s
	for _, n := range s.takeNotices() {
		t.message("agent-lsp: " + n + "\n\n")
	}
	if s.historyRef().Len() == 0 {
		defer t.titled(prompt)
	}
	if t.n == 1 {
		t.sandboxNotice()
	}
	settings, provider, err := t.a.resolve(ctx, s)
	if err != nil {
		return resp, requestError(err)
	}
	prompt, images = t.imagesFor(settings, prompt, images)
	if err := t.openWorkspace(settings); err != nil {
		return resp, requestError(err)
	}
	defer t.ws.Close() // the commands' view, if one was made
	mode := agentrun.Mode(s.currentMode())
	var notes *agent.Memory
	if mode != agentrun.ModeAsk {
		notes = s.memory.ForRun()
	}
	out, runErr := agentrun.Do(ctx, agentrun.Request{
		Settings: settings, Provider: provider, Mode: mode, Prompt: prompt, Images: images, History: s.historyRef(),
		View: t.ws, Policy: s.policy, Approver: t, Notes: notes, MCP: t.a.mcp, LSP: t.a.lsp,
		ConfirmPlan: t.confirmPlan, Stream: true, OnEvent: t.event,
	})
	resp.Usage = usageOf(out.Usage)
	if ctx.Err() != nil {
		return cancelled(resp), nil
	}
	resp.StopReason = sdk.StopReasonEndTurn
	switch out.Ending {
	case agentrun.Cancelled:
		return cancelled(resp), nil
	case agentrun.Failed:
		return resp, requestError(fmt.Errorf("the run failed: %w", runErr))
	}
	if out.Strategy != agent.StrategyReAct {
		// A plan's or reflexion's answer is composed at the end, not
		// streamed; react's went out as the model gave it.
		t.message(out.Answer)
	} else if out.Appended != "" {
		t.message("\n\n" + out.Appended) // the end of Answer, which was not streamed
	}
	if out.Ending == agentrun.Stopped {
		if errors.Is(runErr, agent.ErrIterationLimit) {
			resp.StopReason = sdk.StopReasonMaxTurnRequests
		}
		t.message("\n\n" + out.StopNote + "\n")
	}
	if !t.offer(out.Proposal, notes) {
		return cancelled(resp), nil
	}
	return resp, nil
}

// sandboxNotice says, once a session, how strongly commands are isolated
// here: a thought at full level, a message below it (more commands ask).
func (t *turn) sandboxNotice() {
	caps := tools.SandboxLevel()
	if caps.Level == sandbox.Full {
		t.send(sdk.UpdateAgentThoughtText("[agent-lsp] commands run in the sandbox at level " + caps.String() + "\n"))
		return
	}
	t.message("agent-lsp: commands run in the sandbox at level " + caps.String() + "; every command that runs the workspace's code asks first.\n\n")
}

func cancelled(resp sdk.PromptResponse) sdk.PromptResponse {
	resp.StopReason = sdk.StopReasonCancelled
	return resp
}

// resolve is a turn's settings and model client, through the connection's
// Models; a model found is kept in the session's settings (keepFound).
func (a *Agent) resolve(ctx context.Context, s *session) (config.Settings, llm.Provider, error) {
	settings, provider, err := a.runModels.Resolve(ctx, s.currentSettings())
	if err == nil {
		s.keepFound(settings)
	}
	return settings, provider, err
}

// keepFound keeps the model found for s's settings, so that its model
// option names it, unless one was chosen meanwhile.
func (s *session) keepFound(found config.Settings) {
	s.setSettings(func(c *config.Settings) {
		if c.Model == "" {
			c.Provider, c.BaseURL, c.Model = found.Provider, found.BaseURL, found.Model
		}
	})
}

func (s *session) currentSettings() config.Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

func (s *session) historyRef() *agent.History {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.history
}

// openWorkspace makes the turn's view: through the client's buffers when
// it reads files for us, disk otherwise; commands in the sandbox.
func (t *turn) openWorkspace(settings config.Settings) error {
	var overlay tools.Overlay
	if t.files != nil {
		overlay = t.files
	}
	ws, err := agentrun.OpenView(t.s.roots, 0, overlay, settings, t.a.opts.Env("HOME"))
	if err != nil {
		return err
	}
	t.ws = ws
	return nil
}

func usageOf(u llm.Usage) *sdk.Usage {
	if u == (llm.Usage{}) {
		return nil
	}
	out := &sdk.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	if u.CachedTokens > 0 {
		out.CachedReadTokens = sdk.Ptr(u.CachedTokens)
	}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = sdk.Ptr(u.ReasoningTokens)
	}
	return out
}

// taskFrom turns the prompt's content blocks into the task's text: the
// user's words, then what they attached. An embedded file (no fragment: the
// whole file, as the editor has it) inside the workspace is also known to
// the turn's view as that file's buffer.
func (s *session) taskFrom(blocks []sdk.ContentBlock) (task string, known map[string]string, images []llm.Image, err error) {
	var words, attached strings.Builder
	known = map[string]string{}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			words.WriteString(b.Text.Text)
		case b.ResourceLink != nil:
			attached.WriteString(s.describeLink(b.ResourceLink.Uri, b.ResourceLink.Name))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			name, abs := s.locate(r.Uri)
			fmt.Fprintf(&attached, "- %s, as the editor has it:\n%s\n", name, fenced(r.Text))
			if abs != "" && !strings.Contains(r.Uri, "#") {
				known[abs] = r.Text
			}
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			name, _ := s.locate(b.Resource.Resource.BlobResourceContents.Uri)
			fmt.Fprintf(&attached, "- %s (binary; its content was left out)\n", name)
		case b.Image != nil:
			img, err := imageOf(b.Image)
			if err != nil {
				return "", nil, nil, err
			}
			images = append(images, img)
		case b.Audio != nil:
			attached.WriteString("- an audio clip (left out: agent-lsp reads text only)\n")
		}
	}
	task = strings.TrimSpace(words.String())
	if attached.Len() > 0 {
		if task == "" {
			task = "Look at what I attached."
		}
		task += "\n\nAttached:\n" + attached.String()
	}
	if task == "" && len(images) > 0 {
		task = "Look at the image I attached."
	}
	if task == "" {
		return "", nil, nil, sdk.NewInvalidParams(map[string]any{"error": "the prompt has no text"})
	}
	return task, known, images, nil
}

// describeLink says what a resource link points at, and whether the tools can read it.
func (s *session) describeLink(uri, name string) string {
	label, abs := s.locate(uri)
	switch {
	case abs != "":
		return fmt.Sprintf("- %s (read it with read_file)\n", label)
	case strings.HasPrefix(uri, "file:"):
		return fmt.Sprintf("- %s (outside the workspace: the tools cannot read it)\n", label)
	}
	if name != "" && name != uri {
		return fmt.Sprintf("- %s: %s\n", name, tools.Printable(uri))
	}
	return fmt.Sprintf("- %s\n", tools.Printable(uri))
}
