// Package llmtest holds test doubles for the llm layer: a scripted in-process
// Provider, and httptest servers that speak the real OpenAI and Gemini wire
// formats so the real SDKs can be exercised, with recorded shapes of real
// providers' answers for their quirks (recorded.go). Each is scripted per
// test; none is a product mode.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Turn is one scripted model answer.
type Turn struct {
	Text  string
	Calls []Call
	// Finish overrides the stop: "length" (OpenAI) / "MAX_TOKENS" (Gemini) on the wire,
	// llm.StopMaxTokens for Scripted.
	Finish string
	// Status, with Body and Header, makes a wire server answer with an HTTP error.
	Status int
	Body   string
	Header map[string]string
	// Delay holds the answer back; a Delay longer than the test waits is a hang.
	Delay time.Duration
	// Err makes Scripted return this error.
	Err error
	// RawBody makes a wire server answer 200 with this body as it is (a
	// malformed response).
	RawBody string
	// SSE makes a wire server answer 200 with this event stream as it is
	// (a recorded stream, see recorded.go).
	SSE string
	// CloseMidStream makes a wire server start the answer and drop the
	// connection halfway.
	CloseMidStream bool
	// Reasoning is the model's thinking, sent as a thought part (Gemini) or
	// reasoning_content (OpenAI-compatible servers).
	Reasoning string
	// NoCallIDs sends tool calls without ids, as some compatible servers do.
	NoCallIDs bool
}

// Call is one scripted tool call; Args is raw JSON (it may be malformed on purpose).
type Call struct {
	ID   string
	Name string
	Args string
}

// Scripted is an in-process llm.Provider answering with its turns in order.
// It records every request. Safe for concurrent use.
type Scripted struct {
	Model string

	mu       sync.Mutex // guards turns and requests
	turns    []Turn
	requests []llm.Request
}

// NewScripted returns a provider that plays turns in order.
func NewScripted(turns ...Turn) *Scripted { return &Scripted{Model: "scripted", turns: turns} }

// Name implements llm.Provider.
func (s *Scripted) Name() string { return "scripted:" + s.Model }

// Chat implements llm.Provider.
func (s *Scripted) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	req.Messages = append([]llm.Message(nil), req.Messages...)
	s.requests = append(s.requests, req)
	if len(s.turns) == 0 {
		s.mu.Unlock()
		return llm.Response{}, fmt.Errorf("llmtest: script exhausted after %d requests", len(s.requests)-1)
	}
	t := s.turns[0]
	s.turns = s.turns[1:]
	s.mu.Unlock()
	if t.Delay > 0 {
		select {
		case <-time.After(t.Delay):
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
	}
	if t.Err != nil {
		return llm.Response{}, t.Err
	}
	if req.OnText != nil && t.Text != "" {
		req.OnText(t.Text)
	}
	resp := llm.Response{Text: t.Text, StopReason: llm.StopEndTurn}
	for i, c := range t.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: id, Name: c.Name, Args: json.RawMessage(c.Args)})
	}
	switch {
	case len(resp.ToolCalls) > 0:
		resp.StopReason = llm.StopToolUse
	case t.Finish != "":
		resp.StopReason = llm.StopMaxTokens
	}
	return resp, nil
}

// Requests returns what Chat was called with so far.
func (s *Scripted) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.requests...)
}

// Remaining is the number of turns not yet played.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}
