package acp_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/gemini"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// png is the smallest valid PNG (1×1), as a client pastes a screenshot.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func imageBlock() sdk.ContentBlock {
	return sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png")
}

// A pasted image goes to a vision model on the OpenAI wire as a data URL
// content part, after the words.
func TestImageToOpenAIVisionModel(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "A single pixel."})
	f := newFixture(t, nil, srv, fixtureOptions{env: map[string]string{"AGENT_LSP_MODEL": "gpt-4.1-mini"}})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("what is in this screenshot?"), imageBlock())
	body := toJSON(srv.Requests()[0])
	want := `"image_url":{"url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"}`
	if !strings.Contains(body, want) || !strings.Contains(body, `"text":"what is in this screenshot?"`) {
		t.Errorf("request = %s", body)
	}
	if strings.Contains(agentText(f.updates()), "left out") {
		t.Errorf("a vision model's turn said the image was left out")
	}
}

// On the Gemini wire the image is an inline data part.
func TestImageToGemini(t *testing.T) {
	srv := llmtest.NewGeminiServer(t, llmtest.Turn{Text: "A single pixel."})
	f := newFixture(t, nil, nil, fixtureOptions{
		env: map[string]string{"AGENT_LSP_PROVIDER": "gemini", "AGENT_LSP_MODEL": "gemini-2.5-flash", "GEMINI_API_KEY": "k"},
		provider: func(ctx context.Context, s config.Settings) (llm.Provider, error) {
			return gemini.New(ctx, gemini.Config{Model: s.Model, APIKey: s.GeminiKey, BaseURL: srv.URL})
		},
	})
	s := f.newSession()
	f.prompt(s.SessionId, imageBlock())
	body := toJSON(srv.Requests()[0])
	if !strings.Contains(body, `"inlineData":{"data":"`+base64.StdEncoding.EncodeToString(png)+`","mimeType":"image/png"}`) ||
		!strings.Contains(body, "Look at the image I attached.") {
		t.Errorf("request = %s", body)
	}
}

// A model without vision gets the words and a note; the user is told why;
// a bad image is the client's error.
func TestImageForModelWithoutVision(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "I cannot see it."})
	f := newFixture(t, nil, srv, fixtureOptions{env: map[string]string{"AGENT_LSP_MODEL": "qwen2.5-coder"}})
	s := f.newSession()
	if r := f.prompt(s.SessionId, sdk.TextBlock("what is this?"), imageBlock()); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", r.StopReason)
	}
	body := toJSON(srv.Requests()[0])
	if strings.Contains(body, "image_url") || !strings.Contains(body, "which were left out: the model in use cannot see images") {
		t.Errorf("request = %s", body)
	}
	if got := agentText(f.updates()); !strings.Contains(got, "qwen2.5-coder does not take images") {
		t.Errorf("the user was not told: %q", got)
	}
	for _, bad := range []sdk.ContentBlock{sdk.ImageBlock("not base64!", "image/png"), sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/tiff")} {
		if _, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("x"), bad}}); err == nil || !strings.Contains(err.Error(), "image") {
			t.Errorf("a bad image: %v", err)
		}
	}
}
