package openai

import (
	"encoding/base64"

	sdk "github.com/openai/openai-go/v3"

	"github.com/agent-lsp/agent-lsp/llm"
)

// userMessage is a user message on the wire: its text, and its images as
// data URLs in content parts (the chat completions image input).
func userMessage(m llm.Message) sdk.ChatCompletionMessageParamUnion {
	if len(m.Images) == 0 {
		return sdk.UserMessage(m.Text)
	}
	parts := []sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart(m.Text)}
	for _, img := range m.Images {
		url := "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	return sdk.UserMessage(parts)
}
