package gemini

import (
	"google.golang.org/genai"

	"github.com/agent-lsp/agent-lsp/llm"
)

// userContent is a user message on the wire: its text, and its images as
// inline data parts.
func userContent(m llm.Message) *genai.Content {
	if len(m.Images) == 0 {
		return genai.NewContentFromText(m.Text, genai.RoleUser)
	}
	parts := []*genai.Part{genai.NewPartFromText(m.Text)}
	for _, img := range m.Images {
		parts = append(parts, genai.NewPartFromBytes(img.Data, img.MIMEType))
	}
	return genai.NewContentFromParts(parts, genai.RoleUser)
}
