// Package gemini is the llm.Provider for the Gemini API on the official
// google.golang.org/genai SDK, with native function calling.
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Config selects the model and endpoint. BaseURL overrides the API host (tests,
// proxies); APIKey is required by the SDK even then.
type Config struct {
	Model      string
	APIKey     string
	BaseURL    string
	HTTPClient *http.Client
	// Thinking is the thinking level for models that take one (Gemini 3:
	// "minimal", "low", "medium", "high"); "" leaves the model's default.
	Thinking string
}

// Provider implements llm.Provider. It is safe for concurrent use.
type Provider struct {
	client   *genai.Client
	model    string
	thinking string
}

// New builds a provider. genai does not retry by default, which is what we
// want: retrying is decided in the llm resilience layer.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, errors.New("gemini: no model configured (set AGENT_LSP_MODEL)")
	}
	if cfg.APIKey == "" {
		return nil, errors.New("gemini: no API key (set GEMINI_API_KEY)")
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = llm.SharedHTTPClient()
	}
	cc := &genai.ClientConfig{APIKey: cfg.APIKey, Backend: genai.BackendGeminiAPI, HTTPClient: httpClient}
	if cfg.BaseURL != "" {
		cc.HTTPOptions.BaseURL = cfg.BaseURL
	}
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &Provider{client: client, model: cfg.Model, thinking: cfg.Thinking}, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "gemini:" + p.model }

// Chat implements llm.Provider; with req.OnText set it streams.
func (p *Provider) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	contents, config, err := p.translate(req)
	if err != nil {
		return llm.Response{}, err
	}
	acc := accumulator{onReasoning: req.OnReasoning}
	acc.content = llm.NewThinkSplitter(req.OnText, req.OnReasoning, false)
	if req.OnText == nil {
		r, err := p.client.Models.GenerateContent(ctx, p.model, contents, config)
		if err != nil {
			return llm.Response{}, p.wrapError(ctx, err)
		}
		acc.add(r)
	} else {
		for r, err := range p.client.Models.GenerateContentStream(ctx, p.model, contents, config) {
			if err != nil {
				return llm.Response{}, p.wrapError(ctx, err)
			}
			acc.add(r)
		}
	}
	resp := acc.response()
	resp.Opaque = &llm.Opaque{Origin: p.Name(), TextSignature: acc.textSignature}
	return resp, nil
}

// Models implements llm.ModelLister: the names the API lists, without "models/".
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	var names []string
	for m, err := range p.client.Models.All(ctx) {
		if err != nil {
			return nil, p.wrapError(ctx, err)
		}
		names = append(names, strings.TrimPrefix(m.Name, "models/"))
	}
	return names, nil
}

// accumulator gathers one answer from one or many (streamed) responses.
type accumulator struct {
	onReasoning func(string)
	// content is the answer's text: a model served here without thought
	// parts (Gemma) may write its thought into it, as elsewhere.
	content *llm.ThinkSplitter

	reasoning     strings.Builder
	textSignature []byte
	calls         []llm.ToolCall
	finish        genai.FinishReason
	usage         llm.Usage
}

func (a *accumulator) add(r *genai.GenerateContentResponse) {
	if r.UsageMetadata != nil {
		m := r.UsageMetadata
		// Gemini counts thoughts apart from the candidates; both are output.
		a.usage = llm.Usage{InputTokens: int(m.PromptTokenCount), OutputTokens: int(m.CandidatesTokenCount + m.ThoughtsTokenCount),
			CachedTokens: int(m.CachedContentTokenCount), ReasoningTokens: int(m.ThoughtsTokenCount)}
	}
	if len(r.Candidates) == 0 {
		return
	}
	c := r.Candidates[0]
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
	if c.Content == nil {
		return
	}
	for _, part := range c.Content.Parts {
		switch {
		case part.FunctionCall != nil:
			args, _ := json.Marshal(part.FunctionCall.Args)
			if part.FunctionCall.Args == nil {
				args = []byte("{}")
			}
			id := part.FunctionCall.ID
			if id == "" {
				// The Gemini API often omits ids; results are matched by name and
				// order there, but our history ties each result to an id.
				id = "gemini-" + strconv.Itoa(len(a.calls)+1) + "_" + part.FunctionCall.Name
			}
			// Kept exactly as sent: with parallel calls only the first carries one.
			a.calls = append(a.calls, llm.ToolCall{ID: id, Name: part.FunctionCall.Name, Args: args, Signature: part.ThoughtSignature})
		case part.Thought:
			a.reasoning.WriteString(part.Text)
			if a.onReasoning != nil && part.Text != "" {
				a.onReasoning(part.Text)
			}
		default:
			// A streamed answer may bring the text's signature in a part of its own.
			if len(part.ThoughtSignature) > 0 {
				a.textSignature = part.ThoughtSignature
			}
			a.content.Write(part.Text)
		}
	}
}

func (a *accumulator) response() llm.Response {
	content := a.content.Close(a.finish == genai.FinishReasonMaxTokens)
	resp := llm.Response{Text: content.Text, ToolCalls: a.calls, Usage: a.usage, Reasoning: llm.JoinReasoning(a.reasoning.String(), content.Reasoning)}
	switch {
	case len(a.calls) > 0:
		resp.StopReason = llm.StopToolUse
	case a.finish == genai.FinishReasonMaxTokens:
		resp.StopReason = llm.StopMaxTokens
	default:
		resp.StopReason = llm.StopEndTurn
	}
	return resp
}

func (p *Provider) translate(req llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{}
	if req.System != "" {
		config.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if req.JSONOutput {
		config.ResponseMIMEType = "application/json"
	}
	if thinks(p.model) {
		config.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: req.OnReasoning != nil}
		if p.thinking != "" && geminiMajor(p.model) >= 3 {
			config.ThinkingConfig.ThinkingLevel = genai.ThinkingLevel(strings.ToUpper(p.thinking))
		}
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			var schema map[string]any
			if err := json.Unmarshal(t.Schema, &schema); err != nil {
				return nil, nil, fmt.Errorf("gemini: schema of tool %s: %w", t.Name, err)
			}
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schema})
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	contents := make([]*genai.Content, 0, len(req.Messages))
	turnStart := currentTurn(req.Messages)
	for i, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			contents = append(contents, userContent(m))
		case llm.RoleAssistant:
			contents = append(contents, genai.NewContentFromParts(p.modelParts(m, i >= turnStart), genai.RoleModel))
		case llm.RoleTool:
			parts := make([]*genai.Part, 0, len(m.ToolResults))
			for _, r := range m.ToolResults {
				response := map[string]any{"output": r.Content}
				if r.IsError {
					response = map[string]any{"error": r.Content}
				}
				parts = append(parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: geminiID(r.CallID), Name: r.Name, Response: response}})
			}
			contents = append(contents, genai.NewContentFromParts(parts, genai.RoleUser))
		default:
			return nil, nil, fmt.Errorf("gemini: unknown message role %q", m.Role)
		}
	}
	return contents, config, nil
}

// skipSignature is the value Gemini documents for a function call of the
// current turn that has no signature of its own (history written by another
// model, or before signatures were kept).
var skipSignature = []byte("skip_thought_signature_validator")

// modelParts rebuilds an assistant message. Signatures go back only to the
// model that wrote them (another would reject them); in the current turn a
// Gemini 3 model requires one on the first call of each step, so a call
// without a usable one gets the documented sentinel.
func (p *Provider) modelParts(m llm.Message, currentTurn bool) []*genai.Part {
	own := m.OpaqueFor(p.Name())
	var parts []*genai.Part
	if m.Text != "" {
		part := genai.NewPartFromText(m.Text)
		if own != nil {
			part.ThoughtSignature = own.TextSignature
		}
		parts = append(parts, part)
	}
	for i, c := range m.ToolCalls {
		var args map[string]any
		if err := json.Unmarshal(c.Args, &args); err != nil {
			// A broken call was answered with an error observation;
			// replay it with no arguments rather than fail the request.
			args = map[string]any{}
		}
		part := &genai.Part{FunctionCall: &genai.FunctionCall{ID: geminiID(c.ID), Name: c.Name, Args: args}}
		switch {
		case own != nil:
			part.ThoughtSignature = c.Signature
		case currentTurn && i == 0 && requiresSignatures(p.model):
			part.ThoughtSignature = skipSignature
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		parts = append(parts, genai.NewPartFromText(""))
	}
	return parts
}

// currentTurn is the index of the first message after the last user
// message: the turn whose calls Gemini validates.
func currentTurn(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return i + 1
		}
	}
	return 0
}

// geminiMajor is the version in a model name ("gemini-3-pro-preview" → 3), 0 if none.
func geminiMajor(model string) int {
	rest, ok := strings.CutPrefix(model, "gemini-")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}

// requiresSignatures: Gemini 3 and later refuse current-turn calls without one.
func requiresSignatures(model string) bool { return geminiMajor(model) >= 3 }

// thinks: the models that take a thinking configuration (2.5 and later).
func thinks(model string) bool {
	return geminiMajor(model) >= 3 || strings.HasPrefix(model, "gemini-2.5")
}

// geminiID drops the ids we made up for calls that came without one.
func geminiID(id string) string {
	if strings.HasPrefix(id, "gemini-") {
		return ""
	}
	return id
}

func (p *Provider) wrapError(ctx context.Context, err error) error {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return llm.TransportError(ctx, p.Name(), err)
	}
	msg := apiErr.Message
	if msg == "" {
		msg = apiErr.Status
	}
	return &llm.Error{
		Kind: llm.KindForStatus(apiErr.Code, msg), Provider: p.Name(), Status: apiErr.Code,
		Message: msg, RetryAfter: retryDelay(apiErr.Details), Err: err,
	}
}

// retryDelay reads google.rpc.RetryInfo from the error details ("retryDelay": "30s").
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, _ := d["retryDelay"].(string); s != "" {
			if dur, err := time.ParseDuration(s); err == nil {
				return dur
			}
		}
	}
	return 0
}
