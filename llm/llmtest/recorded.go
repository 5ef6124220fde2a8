package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Recorded shapes: answers as real providers send them, written by hand
// from their documented and observed wire formats (the go-vcr cassettes
// other agent projects record), for the quirks a clean fake would not
// have. Each is a Turn a wire server plays as it is. The usage they report
// is RecordedInput and RecordedOutput tokens, however often they report it.
const (
	RecordedInput  = 93
	RecordedOutput = 32
)

// RecordedThought and RecordedAnswer are what the reasoning models' shapes
// think and answer.
const (
	RecordedThought = "The user asks what 2 + 2 is. That is 4."
	RecordedAnswer  = "2 + 2 = 4."
)

// thoughtPieces is "<think>\n" RecordedThought "\n</think>\n\n" RecordedAnswer
// cut where tokenizers cut it, tags across chunks included.
var thoughtPieces = []string{"<th", "ink>\n", "The user asks what 2 + 2 is.", " That is 4.", "\n</", "think", ">\n\n", "2 + 2", " = 4."}

// GroqR1Stream is a DeepSeek-R1 distill on Groq (reasoning_format raw):
// the thought in the content, and the usage on the finish chunk (top level
// and in x_groq) and again on the usage-only chunk.
func GroqR1Stream() Turn {
	model := "deepseek-r1-distill-llama-70b"
	usage := groqUsage()
	var events []string
	events = append(events, chunk(model, `{"role":"assistant","content":""}`, "null", `,"x_groq":{"id":"req_01jrecorded"}`))
	for _, p := range thoughtPieces {
		events = append(events, chunk(model, content(p), "null", ""))
	}
	events = append(events,
		chunk(model, `{}`, `"stop"`, `,"x_groq":{"id":"req_01jrecorded","usage":`+usage+`},"usage":`+usage),
		usageOnly(model, usage, `,"x_groq":{"id":"req_01jrecorded","usage":`+usage+`}`))
	return Turn{SSE: sse(events)}
}

// GroqXUsageStream is Groq without stream_options: the usage only in
// x_groq, on the finish chunk.
func GroqXUsageStream() Turn {
	model := "llama-3.3-70b-versatile"
	return Turn{SSE: sse([]string{
		chunk(model, `{"role":"assistant","content":""}`, "null", `,"x_groq":{"id":"req_01jrecorded"}`),
		chunk(model, content(RecordedAnswer), "null", ""),
		chunk(model, `{}`, `"stop"`, `,"x_groq":{"id":"req_01jrecorded","usage":`+groqUsage()+`}`),
	})}
}

func groqUsage() string {
	return fmt.Sprintf(`{"queue_time":0.021,"prompt_tokens":%d,"prompt_time":0.004,"completion_tokens":%d,"completion_time":0.1,"total_tokens":%d,"total_time":0.104}`,
		RecordedInput, RecordedOutput, RecordedInput+RecordedOutput)
}

// XAIStream is xAI's Grok: the running usage on every chunk.
func XAIStream() Turn {
	model := "grok-3-mini"
	pieces := strings.SplitAfter(RecordedAnswer, " ")
	var events []string
	for i, p := range pieces {
		out := RecordedOutput - len(pieces) + 1 + i
		events = append(events, chunk(model, content(p), "null",
			fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"text_tokens":%d,"audio_tokens":0,"image_tokens":0,"cached_tokens":0}},"system_fingerprint":"fp_1"`,
				RecordedInput, out, RecordedInput+out, RecordedInput)))
	}
	events = append(events, chunk(model, `{}`, `"stop"`, fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`,
		RecordedInput, RecordedOutput, RecordedInput+RecordedOutput)))
	return Turn{SSE: sse(events)}
}

// OpenAIStream is OpenAI's own shape: "usage": null on every chunk, the
// usage on a last chunk without choices.
func OpenAIStream() Turn {
	model := "gpt-4o-mini-2024-07-18"
	return Turn{SSE: sse([]string{
		chunk(model, `{"role":"assistant","content":"","refusal":null}`, "null", `,"usage":null`),
		chunk(model, content(RecordedAnswer), "null", `,"usage":null`),
		chunk(model, `{}`, `"stop"`, `,"usage":null`),
		usageOnly(model, plainUsage(), ""),
	})}
}

// DeepSeekReasonerStream is deepseek-reasoner: the thought in
// reasoning_content, the usage with DeepSeek's cache counts
// (RecordedCached hit) on a usage-only last chunk.
func DeepSeekReasonerStream() Turn {
	model := "deepseek-reasoner"
	events := []string{chunk(model, `{"role":"assistant","content":null,"reasoning_content":""}`, "null", "")}
	for _, p := range strings.SplitAfter(RecordedThought, " ") {
		events = append(events, chunk(model, `{"content":null,"reasoning_content":`+jsonString(p)+`}`, "null", ""))
	}
	events = append(events, chunk(model, `{"content":`+jsonString(RecordedAnswer)+`,"reasoning_content":null}`, "null", ""),
		chunk(model, `{"content":"","reasoning_content":null}`, `"stop"`, ""),
		usageOnly(model, fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0},`+
			`"completion_tokens_details":{"reasoning_tokens":20},"prompt_cache_hit_tokens":%d,"prompt_cache_miss_tokens":%d}`,
			RecordedInput, RecordedOutput, RecordedInput+RecordedOutput, RecordedCached, RecordedInput-RecordedCached), ""))
	return Turn{SSE: sse(events)}
}

// RecordedCached is the cached input DeepSeekReasonerStream reports.
const RecordedCached = 64

// LlamaCppQwen3Stream is llama.cpp serving Qwen3 without a reasoning
// parser (--reasoning-format none): the thought in the content, the usage
// and timings on the finish chunk.
func LlamaCppQwen3Stream() Turn {
	model := "Qwen3-8B-Q4_K_M.gguf"
	var events []string
	for _, p := range thoughtPieces {
		events = append(events, chunk(model, content(p), "null", ""))
	}
	events = append(events, chunk(model, `{}`, `"stop"`, `,"usage":`+plainUsage()+`,"timings":{"prompt_n":93,"predicted_n":32}`))
	return Turn{SSE: sse(events)}
}

// OllamaQwQOrphanStream is QwQ (or DeepSeek-R1, Qwen3's thinking models)
// on an OpenAI-compatible server without a reasoning parser: the template
// opened the thought in the prompt, so the content has only its end.
func OllamaQwQOrphanStream() Turn {
	model := "qwq:32b"
	var events []string
	for _, p := range thoughtPieces[2:] {
		events = append(events, chunk(model, content(p), "null", ""))
	}
	events = append(events, chunk(model, `{}`, `"stop"`, ""), usageOnly(model, plainUsage(), ""))
	return Turn{SSE: sse(events)}
}

// OpenRouterStream is OpenRouter: keep-alive comments before the first
// chunk, reasoning in "reasoning", the usage (with its cost) on the last
// chunk.
func OpenRouterStream() Turn {
	model := "deepseek/deepseek-r1"
	events := []string{": OPENROUTER PROCESSING", ": OPENROUTER PROCESSING",
		chunk(model, `{"role":"assistant","content":"","reasoning":`+jsonString(RecordedThought)+`}`, "null", `,"provider":"DeepInfra"`),
		chunk(model, content(RecordedAnswer), "null", `,"provider":"DeepInfra"`),
		chunk(model, `{"role":"assistant","content":""}`, `"stop"`, `,"native_finish_reason":"stop","provider":"DeepInfra"`),
		usageOnly(model, strings.TrimSuffix(plainUsage(), "}")+`,"cost":0.0001,"is_byok":false}`, `,"provider":"DeepInfra"`),
	}
	return Turn{SSE: sse(events)}
}

// GroqR1Completion is GroqR1Stream not streamed.
func GroqR1Completion() Turn {
	body := fmt.Sprintf(`{"id":"chatcmpl-recorded","object":"chat.completion","created":1,"model":"deepseek-r1-distill-llama-70b",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%s},"logprobs":null,"finish_reason":"stop"}],`+
		`"usage":%s,"usage_breakdown":null,"system_fingerprint":"fp_1","x_groq":{"id":"req_01jrecorded"},"service_tier":"on_demand"}`,
		jsonString(strings.Join(thoughtPieces, "")), groqUsage())
	return Turn{RawBody: body}
}

// OpenRouterRateLimited is OpenRouter's 429 for an upstream's limit: the
// reason and the upstream provider only in error.metadata.
func OpenRouterRateLimited() Turn {
	return Turn{Status: 429, Body: `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":` +
		`"deepseek/deepseek-r1:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations",` +
		`"provider_name":"Chutes"}},"user_id":"user_2recorded"}`}
}

// OpenRouterUpstreamJSONError is OpenRouter's 400 passing on the
// upstream's own JSON error as a string in metadata.raw.
func OpenRouterUpstreamJSONError() Turn {
	return Turn{Status: 400, Body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":` +
		jsonString(`{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70000 tokens.","type":"invalid_request_error"}}`) +
		`,"provider_name":"DeepSeek"}}}`}
}

// Error bodies of compatible servers that are not OpenAI's shape, each
// with the words the user must read.

// TGIValidationError is Text Generation Inference's 422: "error" a string.
func TGIValidationError() Turn {
	return Turn{Status: 422, Body: `{"error":"Input validation error: ` + "`inputs`" + ` tokens + ` + "`max_new_tokens`" + ` must be <= 4096. Given: 4000 ` + "`inputs`" + ` tokens and 512 ` + "`max_new_tokens`" + `","error_type":"validation"}`}
}

// GeminiCompatRateLimited is Gemini's OpenAI compatibility's 429: the
// error in a list.
func GeminiCompatRateLimited() Turn {
	return Turn{Status: 429, Body: `[{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]`}
}

// VLLMContextTooLong is vLLM's 400 before it nested its errors.
func VLLMContextTooLong() Turn {
	return Turn{Status: 400, Body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4500 in the messages, 500 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`}
}

// FastAPIDetail is a FastAPI server's error.
func FastAPIDetail() Turn {
	return Turn{Status: 503, Body: `{"detail":"Model is loading, retry in 20 seconds"}`}
}

// ProxyText is a proxy's plain-text error.
func ProxyText() Turn {
	return Turn{Status: 503, Body: "upstream connect error or disconnect/reset before headers. reset reason: connection failure\n"}
}

// OpenRouterErrorIn200 is OpenRouter's upstream failure in a 200 body,
// not streamed: an error object where the choices would be.
func OpenRouterErrorIn200() Turn {
	return Turn{RawBody: `{"error":{"message":"Provider returned error","code":503,"metadata":{"raw":"no healthy upstream","provider_name":"Novita"}},"user_id":"user_2recorded"}`}
}

// OpenRouterStreamError is OpenRouter's failure after the stream started:
// an error event inside the 200 stream.
func OpenRouterStreamError() Turn {
	model := "deepseek/deepseek-r1:free"
	return Turn{SSE: strings.TrimSuffix(sse([]string{": OPENROUTER PROCESSING",
		chunk(model, content("Sure"), "null", `,"provider":"Chutes"`),
		`data: {"id":"gen-recorded","object":"chat.completion.chunk","created":1,"model":"` + model + `","provider":"Chutes",` +
			`"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream connect error","provider_name":"Chutes"}},` +
			`"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
	}), "data: [DONE]\n\n")}
}

func chunk(model, delta, finish, extra string) string {
	return `data: {"id":"chatcmpl-recorded","object":"chat.completion.chunk","created":1,"model":"` + model + `",` +
		`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]` + extra + `}`
}

func usageOnly(model, usage, extra string) string {
	return `data: {"id":"chatcmpl-recorded","object":"chat.completion.chunk","created":1,"model":"` + model + `","choices":[],"usage":` + usage + extra + `}`
}

func plainUsage() string {
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, RecordedInput, RecordedOutput, RecordedInput+RecordedOutput)
}

func content(s string) string { return `{"content":` + jsonString(s) + `}` }

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// sse is a recorded event stream: each event (a data line, or a comment)
// then [DONE].
func sse(events []string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}
