package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Outcome is the structured result of an MCP call, for the UI.
type Outcome struct {
	Server, Tool string // the server's names
	IsError      bool
	Images       int // images and audio described, not passed on
	Resources    int // resources and links described or quoted
}

// render turns a call's result into what the model reads: the text parts,
// the structured content where the text does not already carry it, and a
// line describing each image, audio clip, resource and link (their bytes
// never go to the model). The whole is cut in the middle past maxOutput
// bytes. isError stays an error the model can correct.
func render(server, tool string, res *sdk.CallToolResult, maxOutput int) tools.Result {
	out := Outcome{Server: server, Tool: tool, IsError: res.IsError}
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, contentText(c, &out))
	}
	if res.StructuredContent != nil {
		if s, err := json.Marshal(res.StructuredContent); err == nil && !carried(parts, s) {
			parts = append(parts, "structured content:\n"+string(s))
		}
	}
	text := strings.Join(parts, "\n")
	switch {
	case strings.TrimSpace(text) == "" && res.IsError:
		text = "the tool reported an error and gave no message"
	case strings.TrimSpace(text) == "":
		text = "(the tool returned nothing)"
	}
	if maxOutput <= 0 {
		maxOutput = tools.DefaultMaxOutput // as for a command's output
	}
	return tools.Result{Text: tools.CutMiddle(text, maxOutput), IsError: res.IsError, Data: out}
}

func contentText(c sdk.Content, out *Outcome) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		out.Images++
		return fmt.Sprintf("[an image (%s, %d bytes) — not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		out.Images++
		return fmt.Sprintf("[an audio clip (%s, %d bytes) — not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		out.Resources++
		s := fmt.Sprintf("[a resource link: %s <%s>", c.Name, c.URI)
		if c.MIMEType != "" {
			s += " (" + c.MIMEType + ")"
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		out.Resources++
		r := c.Resource
		if r == nil {
			return "[an empty embedded resource]"
		}
		if r.Text != "" {
			return fmt.Sprintf("[the resource <%s> (%s):]\n%s", r.URI, orUnknown(r.MIMEType), r.Text)
		}
		return fmt.Sprintf("[the resource <%s> (%s, %d bytes of binary data) — not shown]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
	}
	b, _ := json.Marshal(c)
	return fmt.Sprintf("[content the agent does not read: %.200s]", b)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "type unknown"
	}
	return mime
}

// carried reports whether one of the text parts already is the structured
// content, as the spec asks servers to send it (serialised in a text part).
func carried(parts []string, structured []byte) bool {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return false
	}
	canonical, _ := json.Marshal(want)
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || (p[0] != '{' && p[0] != '[') {
			continue
		}
		var got any
		if json.Unmarshal([]byte(p), &got) == nil {
			if b, _ := json.Marshal(got); bytes.Equal(b, canonical) {
				return true
			}
		}
	}
	return false
}
