package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent"
)

// progressBegin creates the run's work-done progress (cancellable) when the
// client supports it.
func (s *Server) progressBegin(ctx context.Context, r *run) {
	s.mu.Lock()
	supported := s.caps.progress
	s.mu.Unlock()
	if !supported {
		return
	}
	// Not the run's context: a run cancelled this early still shows, and
	// ends as cancelled, rather than never ending.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := s.conn.Call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: r.token}, nil); err != nil {
		s.log.Debug("progress create", "error", err)
		r.mu.Lock()
		r.progressOff = true
		r.mu.Unlock()
		return
	}
	yes := true
	msg := summarize(r.prompt, 80)
	s.progress(ctx, r, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Agent", Cancellable: &yes, Message: &msg})
}

// progressReport reports msg on the run's progress.
func (s *Server) progressReport(ctx context.Context, r *run, msg string) {
	s.progress(ctx, r, &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
}

// progressEvent reports a step: "Iteration 2/10 · read_file hello.py", or the
// model's streaming text after it.
func (s *Server) progressEvent(ctx context.Context, r *run, e agent.Event) {
	var msg string
	r.mu.Lock()
	switch e.Kind {
	case agent.EventIteration:
		r.step = fmt.Sprintf("Iteration %d/%d", e.Iteration, e.MaxIterations)
		r.streamed, r.reasoning = "", ""
		msg = r.step
	case agent.EventThought:
		// Whatever the throttle held back of the streamed text.
		if e.Text != "" {
			msg = r.step + " · " + summarize(tail(e.Text, 80), 80)
		}
	case agent.EventToolCall:
		msg = r.step + " · " + agent.CallSummary(e.Call)
	case agent.EventTextDelta:
		// Models stream many deltas a second; the editor needs a few updates.
		r.streamed += e.Text
		if time.Since(r.lastReport) < 100*time.Millisecond {
			break
		}
		msg = r.step + " · " + summarize(tail(r.streamed, 80), 80)
	case agent.EventReasoningDelta:
		r.reasoning += e.Text
		if time.Since(r.lastReport) < 100*time.Millisecond {
			break
		}
		msg = r.step + " · thinking: " + summarize(tail(r.reasoning, 80), 80)
	case agent.EventNotice:
		msg = e.Text
	case agent.EventPlan:
		msg = "Plan: " + summarize(e.Text, 100)
	}
	if msg != "" {
		r.lastReport = time.Now()
	}
	r.mu.Unlock()
	if msg == "" {
		return
	}
	if e.Scope != "" {
		msg = e.Scope + " · " + msg
	}
	s.progress(ctx, r, &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
}

func (s *Server) progressEnd(ctx context.Context, r *run, message string) {
	s.progress(ctx, r, &protocol.WorkDoneProgressEnd{Kind: "end", Message: &message})
}

func (s *Server) progress(ctx context.Context, r *run, value any) {
	r.mu.Lock()
	off := r.progressOff
	r.mu.Unlock()
	if r.token == nil || off {
		return
	}
	raw, err := protocol.Marshal(value)
	if err != nil {
		return
	}
	if err := s.conn.Notify(ctx, "$/progress", &protocol.ProgressParams{Token: r.token, Value: raw}); err != nil {
		s.log.Debug("progress", "error", err)
	}
}

// workDoneProgressCancel cancels the run whose progress the user cancelled.
func (s *Server) workDoneProgressCancel(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params struct {
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, err
	}
	want := strings.Trim(string(params.Token), `"`)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if tokenString(r.token) == want {
			r.cancel()
		}
	}
	return nil, nil
}

func tokenString(t protocol.ProgressToken) string {
	switch t := t.(type) {
	case protocol.String:
		return string(t)
	case protocol.Integer:
		return fmt.Sprint(int32(t))
	}
	return ""
}

// tail keeps the last n bytes of s, on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
