package llm

import (
	"context"
	"strings"
)

// InfillRequest asks for the text that goes between Prefix and Suffix
// (fill-in-the-middle), as code completion needs.
type InfillRequest struct {
	Prefix, Suffix string
	MaxTokens      int
	Stop           []string
}

// Infiller fills in the middle: a FIM endpoint, or a chat model prompted to.
type Infiller interface {
	Infill(ctx context.Context, req InfillRequest) (string, error)
	// Name is "provider:model", for status.
	Name() string
}

// chatInfiller prompts a chat model to fill in the middle, for providers
// with no FIM endpoint (Gemini, chat-only servers).
type chatInfiller struct{ p Provider }

// ChatInfiller makes p an Infiller through a chat prompt.
func ChatInfiller(p Provider) Infiller { return chatInfiller{p} }

func (c chatInfiller) Name() string { return c.p.Name() }

const infillSystem = "You are a code completion engine. The user sends a file with a <CURSOR> marker. " +
	"Reply with exactly the text to insert at the cursor: no explanation, no code fence, no text that is already " +
	"before or after the cursor. Reply with nothing if nothing fits."

func (c chatInfiller) Infill(ctx context.Context, req InfillRequest) (string, error) {
	resp, err := c.p.Chat(ctx, Request{
		System:   infillSystem,
		Messages: []Message{{Role: RoleUser, Text: req.Prefix + "<CURSOR>" + req.Suffix}},
	})
	if err != nil {
		return "", err
	}
	text := unfence(resp.Text)
	for _, stop := range req.Stop {
		if i := strings.Index(text, stop); i >= 0 {
			text = text[:i]
		}
	}
	return text, nil
}

// unfence removes the code fence chat models put around code though asked not to.
func unfence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return text
	}
	t = strings.TrimSuffix(t, "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		t = t[nl+1:] // the fence line with its language
	}
	return strings.TrimSuffix(t, "\n")
}
