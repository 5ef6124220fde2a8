// Package openai is the llm.Provider for OpenAI's Chat Completions API and every
// server that speaks it (vLLM, Ollama's /v1, llama.cpp, LM Studio), on the
// official openai-go SDK. It translates messages and nothing else.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Config selects the server and model. APIKey may be empty for local servers.
type Config struct {
	Model   string
	APIKey  string
	BaseURL string // e.g. http://localhost:11434/v1 for Ollama; empty for OpenAI
	// HTTPClient lets tests and proxies sit behind the SDK; nil means a default client.
	HTTPClient *http.Client
	// Thinking is reasoning_effort ("minimal", "low", "medium", "high") for
	// reasoning models; "" sends none (servers that don't know it may refuse it).
	Thinking string
	// FIM is how Infill asks /v1/completions: "suffix" (the suffix
	// parameter), a template name (FIMTemplates), or ""/"auto" (by model name).
	FIM string
}

// Provider implements llm.Provider. It is safe for concurrent use.
type Provider struct {
	thinking string
	fim      string
	client   sdk.Client
	model    string
	server   string // base URL and model: the key of what is learned of them
}

// New builds a provider. The SDK's own retries are disabled: retrying is decided
// in one place, the llm resilience layer.
func New(cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: no model configured (set AGENT_LSP_MODEL)")
	}
	key := cfg.APIKey
	if key == "" {
		// Local servers ignore the key, but the SDK would otherwise read the
		// environment on its own; keep configuration in one place.
		key = "unused"
	}
	opts := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(0), option.WithMiddleware(errorBodies)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = llm.SharedHTTPClient()
	}
	opts = append(opts, option.WithHTTPClient(httpClient))
	return &Provider{client: sdk.NewClient(opts...), model: cfg.Model, thinking: cfg.Thinking, fim: cfg.FIM,
		server: cfg.BaseURL + " " + cfg.Model}, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "openai:" + p.model }

// Chat implements llm.Provider; with req.OnText set it streams.
func (p *Provider) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	if req.OnText != nil {
		return p.stream(ctx, params, req.OnText, req.OnReasoning)
	}
	completion, err := p.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return llm.Response{}, p.wrapError(ctx, err)
	}
	if len(completion.Choices) == 0 {
		if err := p.bodyError([]byte(completion.RawJSON()), nil); err != nil {
			return llm.Response{}, err // a router's failure in a 200
		}
		return llm.Response{}, &llm.Error{Kind: llm.KindUnavailable, Provider: p.Name(), Message: "response has no choices"}
	}
	choice := completion.Choices[0]
	reasoning := reasoningOf(choice.Message.JSON.ExtraFields)
	content := p.splitter(nil, nil)
	if reasoning != "" {
		content.ReasoningApart()
	}
	content.Write(choice.Message.Content)
	resp := responseFrom(p.split(content, choice.FinishReason), choice.Message.ToolCalls, choice.FinishReason)
	resp.Usage, _ = reportedUsage(completion.Usage, completion.JSON.Usage, completion.JSON.ExtraFields)
	resp.Reasoning = llm.JoinReasoning(reasoning, resp.Reasoning)
	if req.OnReasoning != nil && resp.Reasoning != "" {
		req.OnReasoning(resp.Reasoning)
	}
	return resp, nil
}

// splitter reads the content for reasoning written into it (see
// llm.ThinkSplitter), starting inside a thought for a model seen to open
// it in the prompt.
func (p *Provider) splitter(onText, onReasoning func(string)) *llm.ThinkSplitter {
	return llm.NewThinkSplitter(onText, onReasoning, opensThought.is(p.server))
}

// split ends the content and learns whether the model opens its thought in
// the prompt.
func (p *Provider) split(s *llm.ThinkSplitter, finish string) llm.Split {
	split := s.Close(finish == "length")
	switch {
	case split.OpenedInPrompt:
		opensThought.set(p.server, true)
	case split.WrongGuess:
		opensThought.set(p.server, false)
	}
	return split
}

// reasoningOf reads the reasoning a compatible server reports beside the
// content (vLLM, llama.cpp, DeepSeek, Qwen: reasoning_content; others:
// reasoning). It is shown, never mistaken for the answer.
func reasoningOf(fields map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if f, ok := fields[key]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

// Models implements llm.ModelLister: /models of the server.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	var names []string
	pager := p.client.Models.ListAutoPaging(ctx)
	for pager.Next() {
		names = append(names, pager.Current().ID)
	}
	if err := pager.Err(); err != nil {
		return nil, p.wrapError(ctx, err)
	}
	return names, nil
}

func (p *Provider) stream(ctx context.Context, params sdk.ChatCompletionNewParams, onText, onReasoning func(string)) (llm.Response, error) {
	params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
	stream := p.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc sdk.ChatCompletionAccumulator
	var reasoning strings.Builder
	var usage streamUsage
	content := p.splitter(onText, onReasoning)
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		usage.see(chunk)
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if r := reasoningOf(c.Delta.JSON.ExtraFields); r != "" {
				content.ReasoningApart()
				reasoning.WriteString(r)
				if onReasoning != nil {
					onReasoning(r)
				}
			}
			if c.Delta.Content != "" {
				content.Write(c.Delta.Content)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return llm.Response{}, p.wrapError(ctx, err)
	}
	if len(acc.Choices) == 0 {
		return llm.Response{}, &llm.Error{Kind: llm.KindUnavailable, Provider: p.Name(), Message: "stream ended without a choice"}
	}
	// Tool calls are read from the accumulated message after the stream ends:
	// JustFinishedToolCall can miss a call whose last delta comes with finish_reason.
	choice := acc.Choices[0]
	resp := responseFrom(p.split(content, choice.FinishReason), choice.Message.ToolCalls, choice.FinishReason)
	resp.Usage = usage.usage
	resp.Reasoning = llm.JoinReasoning(reasoning.String(), resp.Reasoning)
	return resp, nil
}

func responseFrom(content llm.Split, calls []sdk.ChatCompletionMessageToolCallUnion, finish string) llm.Response {
	resp := llm.Response{Text: content.Text, Reasoning: content.Reasoning}
	for _, c := range calls {
		if c.Type != "" && c.Type != "function" {
			continue
		}
		args := c.Function.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		id := c.ID
		if id == "" {
			// Some servers send none; results are tied to calls by id.
			id = fmt.Sprintf("call_%d_%s", len(resp.ToolCalls)+1, c.Function.Name)
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: id, Name: c.Function.Name, Args: json.RawMessage(args)})
	}
	switch {
	case len(resp.ToolCalls) > 0:
		resp.StopReason = llm.StopToolUse
	case finish == "length":
		resp.StopReason = llm.StopMaxTokens
	default:
		resp.StopReason = llm.StopEndTurn
	}
	return resp
}

func (p *Provider) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{Model: shared.ChatModel(p.model)}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			params.Messages = append(params.Messages, userMessage(m))
		case llm.RoleAssistant:
			a := sdk.ChatCompletionAssistantMessageParam{}
			if m.Text != "" {
				a.Content.OfString = sdk.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Args)},
					},
				})
			}
			params.Messages = append(params.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case llm.RoleTool:
			for _, r := range m.ToolResults {
				params.Messages = append(params.Messages, sdk.ToolMessage(r.Content, r.CallID))
			}
		default:
			return params, fmt.Errorf("openai: unknown message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		tool, err := functionTool(t)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionToolUnionParam{OfFunction: &tool})
	}
	if p.thinking != "" {
		params.ReasoningEffort = shared.ReasoningEffort(p.thinking)
	}
	if req.JSONOutput {
		params.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	return params, nil
}

// toolJSON holds each tool's definition as sent, by its name, description
// and schema: every request of every run sends the same few tools, and the
// SDK's reflective encoding of them was a tenth of a busy server's work.
// It is bounded, as MCP servers may describe their tools anew.
var toolJSON = struct {
	sync.Mutex
	m map[toolKey]json.RawMessage
}{m: map[toolKey]json.RawMessage{}}

const toolJSONLimit = 512

type toolKey struct{ name, description, schema string }

// functionTool is t as an OpenAI function tool, encoded once.
func functionTool(t llm.ToolSpec) (sdk.ChatCompletionFunctionToolParam, error) {
	key := toolKey{t.Name, t.Description, string(t.Schema)}
	toolJSON.Lock()
	raw, ok := toolJSON.m[key]
	toolJSON.Unlock()
	if !ok {
		if !json.Valid(t.Schema) {
			return sdk.ChatCompletionFunctionToolParam{}, fmt.Errorf("openai: schema of tool %s is not JSON", t.Name)
		}
		type function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		data, err := json.Marshal(struct {
			Type     string   `json:"type"`
			Function function `json:"function"`
		}{"function", function{t.Name, t.Description, t.Schema}})
		if err != nil {
			return sdk.ChatCompletionFunctionToolParam{}, fmt.Errorf("openai: tool %s: %w", t.Name, err)
		}
		raw = data
		toolJSON.Lock()
		if len(toolJSON.m) < toolJSONLimit {
			toolJSON.m[key] = raw
		}
		toolJSON.Unlock()
	}
	return param.Override[sdk.ChatCompletionFunctionToolParam](raw), nil
}
