package openai

import (
	"encoding/json"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/agent-lsp/agent-lsp/llm"
)

// streamUsage is a streamed call's usage. Servers report the call's running
// total, not an increment: once on a last usage-only chunk (OpenAI,
// Ollama, OpenRouter), on the finish chunk and again on that last one
// (Groq, DeepSeek), or on every chunk (xAI; vLLM with
// continuous_usage_stats). openai-go's accumulator adds the reports up, so
// the last one is taken instead.
type streamUsage struct{ usage llm.Usage }

func (s *streamUsage) see(chunk sdk.ChatCompletionChunk) {
	if u, ok := reportedUsage(chunk.Usage, chunk.JSON.Usage, chunk.JSON.ExtraFields); ok {
		s.usage = u
	}
}

// reportedUsage is the usage a response or chunk reports: its usage
// object, else Groq's x_groq.usage (which Groq sends on the finish chunk);
// false when it reports none, or only zeros.
func reportedUsage(u sdk.CompletionUsage, field respjson.Field, extra map[string]respjson.Field) (llm.Usage, bool) {
	if !field.Valid() {
		groq, ok := extra["x_groq"]
		if !ok {
			return llm.Usage{}, false
		}
		var x struct {
			Usage *sdk.CompletionUsage `json:"usage"`
		}
		if json.Unmarshal([]byte(groq.Raw()), &x) != nil || x.Usage == nil {
			return llm.Usage{}, false
		}
		u = *x.Usage
	}
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return llm.Usage{}, false
	}
	cached := u.PromptTokensDetails.CachedTokens
	if hit, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok && cached == 0 {
		// DeepSeek's own name for them.
		json.Unmarshal([]byte(hit.Raw()), &cached)
	}
	return llm.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
		CachedTokens: int(cached), ReasoningTokens: int(u.CompletionTokensDetails.ReasoningTokens)}, true
}
