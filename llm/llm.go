// Package llm is the neutral vocabulary between the agent loop and the models:
// messages, tool calls and results, stop reasons, and the one Provider interface.
// Providers live in subpackages and translate to and from their wire format and
// nothing else; what they share lives here (errors' kinds, the reasoning a model
// writes into its content). This package knows nothing of tools' semantics or of LSP.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
)

// Role says who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of the previous assistant message's tool calls.
	RoleTool Role = "tool"
)

// StopReason says why the model stopped; the loop continues only on StopToolUse.
type StopReason string

const (
	StopToolUse   StopReason = "tool_use"
	StopEndTurn   StopReason = "end_turn"
	StopMaxTokens StopReason = "max_tokens"
)

// ToolCall is the model's request to run one tool. Args is the raw JSON object the
// model produced; it may be malformed and is validated by the tool registry.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// Signature is opaque data the provider attached to the call (Gemini's
	// thought signature) and needs back unchanged in later requests.
	Signature []byte `json:"signature,omitempty"`
}

// ToolResult is the observation for one ToolCall, tied to it by CallID.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Message is one entry of the conversation. An assistant message may carry
// ToolCalls; a RoleTool message carries the ToolResults answering them.
type Message struct {
	Role        Role         `json:"role"`
	Text        string       `json:"text,omitempty"`
	ToolCalls   []ToolCall   `json:"tool_calls,omitempty"`
	ToolResults []ToolResult `json:"tool_results,omitempty"`
	// Opaque is what the provider that wrote an assistant message needs
	// back; nil for most (a pointer keeps every other message small).
	Opaque *Opaque `json:"opaque,omitempty"`
	// Images go with a user message's text (a pasted screenshot) to a
	// model that sees them (SeesImages).
	Images []Image `json:"images,omitempty"`
}

// Image is a picture in a user message: its bytes and their MIME type
// (image/png, image/jpeg, image/webp, image/gif).
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// Opaque is provider data a message carries unchanged through the history,
// sessions and compaction.
type Opaque struct {
	// Origin is the "provider:model" that wrote the message: opaque data is
	// sent back only to the model that made it.
	Origin string `json:"origin"`
	// TextSignature is the provider's data for the text, like ToolCall.Signature.
	TextSignature []byte `json:"text_signature,omitempty"`
}

// OpaqueFor returns m's opaque data when the model named origin wrote it, else nil.
func (m Message) OpaqueFor(origin string) *Opaque {
	if m.Opaque != nil && m.Opaque.Origin == origin {
		return m.Opaque
	}
	return nil
}

// ToolSpec describes a tool to the model: its name, what it does and the JSON
// Schema of its input object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Request is one THINK step: the whole history (the model is stateless), the tools
// it may call and, when OnText is set, a callback receiving text deltas as they
// stream. Streaming is an option of the same call, not a second API.
type Request struct {
	System   string
	Messages []Message
	Tools    []ToolSpec
	// JSONOutput asks for a single JSON object where the provider supports it
	// (used by the JSON text protocol for models without function calling).
	JSONOutput bool
	OnText     func(delta string)
	// OnReasoning, when set, receives the model's reasoning (thought
	// summaries, reasoning_content) as it streams: for the trace and the
	// progress, never for the answer or the history.
	OnReasoning func(delta string)
}

// Usage counts tokens as the provider reported them (zero when it did not).
// Cached tokens are part of the input; reasoning tokens of the output.
type Usage struct {
	InputTokens     int `json:"input"`
	OutputTokens    int `json:"output"`
	CachedTokens    int `json:"cached"`
	ReasoningTokens int `json:"reasoning"`
}

// Add sums o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedTokens += o.CachedTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// String is the usage for a trace line or a status.
func (u Usage) String() string {
	return fmt.Sprintf("%d input (%d cached), %d output (%d reasoning) tokens", u.InputTokens, u.CachedTokens, u.OutputTokens, u.ReasoningTokens)
}

// Response is the model's answer to one Request.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason StopReason
	Usage      Usage
	// Opaque goes into the assistant message as it is (see Message).
	Opaque *Opaque
	// Reasoning is what the model reported of its thinking, shown, never sent back.
	Reasoning string
	// Price is what the model that answered charges (Priced), nil where it
	// is not known: after a fallback it is the fallback's.
	Price *Price
	// FormatError is set by a text tool protocol when the answer did not
	// follow it; it says what was wrong and what is expected. The loop feeds it
	// back as an observation and counts it as a mistake.
	FormatError string
}

// Provider is one model behind one API. Chat must be safe for concurrent use.
// Errors that the caller may act on are *Error values (see errors.go).
type Provider interface {
	Chat(ctx context.Context, req Request) (Response, error)
	// Name is "provider:model", for traces and status.
	Name() string
}

// ModelLister is a provider that can list the models its server serves.
type ModelLister interface {
	Models(ctx context.Context) ([]string, error)
}

type notifyKey struct{}

// WithNotify returns a context whose provider wrappers report what the user
// should know (a retry, a switch to a fallback model) through notify.
func WithNotify(ctx context.Context, notify func(msg string)) context.Context {
	return context.WithValue(ctx, notifyKey{}, notify)
}

// Notify reports msg through the context's notifier, if any.
func Notify(ctx context.Context, msg string) {
	if n, ok := ctx.Value(notifyKey{}).(func(string)); ok {
		n(msg)
	}
}
