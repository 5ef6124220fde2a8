package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Limits on what a server hands the model. Names go to every provider's
// function-calling API, which take [A-Za-z0-9_-] and at most 64 characters
// (OpenAI's limit; Gemini takes 64 too).
const (
	maxNameLen        = 64
	maxDescriptionLen = 2000
	maxSchemaLen      = 32 << 10
)

// ToolName is what the model calls a server's tool: mcp__SERVER__TOOL,
// Claude Code's convention. Both parts come from outside (a config, a
// server), so every character outside [A-Za-z0-9_-] becomes '_', and a name
// over 64 characters is cut and ends with a hash of the whole, so two long
// names stay apart.
func ToolName(server, tool string) string {
	name := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:3])
	return name[:maxNameLen-len(suffix)] + suffix
}

// sanitize keeps [A-Za-z0-9_-] and turns anything else into '_'.
func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// description marks a server's description as the server's, so the model
// (and whoever reads the request) knows who wrote it, and bounds it.
func description(server, text string) string {
	text = strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD"))
	if len(text) > maxDescriptionLen {
		cut := maxDescriptionLen
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	prefix := "[a tool of the MCP server " + sanitize(server) + "; its description, as the server gives it:] "
	if text == "" {
		return prefix + "(none)"
	}
	return prefix + text
}
