package openai

import (
	"context"
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/agent-lsp/agent-lsp/llm"
)

// FIM templates for servers whose /v1/completions takes no suffix (vLLM):
// the prompt in the model's own fill-in-the-middle tokens.
var fimTemplates = map[string]func(prefix, suffix string) string{
	"qwen":      func(p, s string) string { return "<|fim_prefix|>" + p + "<|fim_suffix|>" + s + "<|fim_middle|>" },
	"starcoder": func(p, s string) string { return "<fim_prefix>" + p + "<fim_suffix>" + s + "<fim_middle>" },
	"codellama": func(p, s string) string { return "<PRE> " + p + " <SUF>" + s + " <MID>" },
	"deepseek": func(p, s string) string {
		return "<｜fim▁begin｜>" + p + "<｜fim▁hole｜>" + s + "<｜fim▁end｜>"
	},
	"codestral": func(p, s string) string { return "[SUFFIX]" + s + "[PREFIX]" + p },
}

// FIMTemplates lists the template names Config.FIM accepts besides "suffix".
func FIMTemplates() []string {
	return []string{"qwen", "starcoder", "codellama", "deepseek", "codestral"}
}

// fimTemplate is the template for model: the configured one, or one its
// name implies; "" sends the suffix parameter (Ollama, llama.cpp, OpenAI).
func fimTemplate(configured, model string) string {
	if configured != "" && configured != "auto" {
		if configured == "suffix" {
			return ""
		}
		return configured
	}
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "qwen") && strings.Contains(m, "coder"):
		return "qwen"
	case strings.Contains(m, "starcoder"):
		return "starcoder"
	case strings.Contains(m, "codellama") || strings.Contains(m, "code-llama"):
		return "codellama"
	case strings.Contains(m, "deepseek") && strings.Contains(m, "coder"):
		return "deepseek"
	case strings.Contains(m, "codestral"):
		return "codestral"
	}
	return ""
}

// Infill implements llm.Infiller on /v1/completions.
func (p *Provider) Infill(ctx context.Context, req llm.InfillRequest) (string, error) {
	params := sdk.CompletionNewParams{Model: sdk.CompletionNewParamsModel(p.model), Temperature: sdk.Float(0)}
	if req.MaxTokens > 0 {
		params.MaxTokens = sdk.Int(int64(req.MaxTokens))
	}
	if len(req.Stop) > 0 {
		params.Stop = sdk.CompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if template, ok := fimTemplates[fimTemplate(p.fim, p.model)]; ok {
		params.Prompt = sdk.CompletionNewParamsPromptUnion{OfString: sdk.String(template(req.Prefix, req.Suffix))}
	} else {
		params.Prompt = sdk.CompletionNewParamsPromptUnion{OfString: sdk.String(req.Prefix)}
		params.Suffix = sdk.String(req.Suffix)
	}
	completion, err := p.client.Completions.New(ctx, params)
	if err != nil {
		return "", p.wrapError(ctx, err)
	}
	if len(completion.Choices) == 0 {
		return "", nil
	}
	// A reasoning model's thought is never inserted into the buffer.
	return llm.SplitThinking(completion.Choices[0].Text).Text, nil
}
