package main

import (
	"context"
	"net/http"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/gemini"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

// newProvider builds the configured provider; settings must have passed Validate.
func newProvider(ctx context.Context, s config.Settings, client *http.Client) (llm.Provider, error) {
	switch s.Provider {
	case config.ProviderGemini:
		return gemini.New(ctx, gemini.Config{Model: s.Model, APIKey: s.GeminiKey, BaseURL: s.BaseURL, HTTPClient: client})
	default:
		return openai.New(openai.Config{Model: s.Model, APIKey: s.OpenAIKey, BaseURL: s.BaseURL, HTTPClient: client})
	}
}
