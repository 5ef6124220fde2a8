package llm

import (
	"strings"
)

// Redacted replaces a secret wherever agent-lsp shows or logs a URL.
const Redacted = "***"

// RedactURL returns u as it may be shown: its userinfo (user:password@,
// or a token alone before the @) becomes ***@ whole, since the user name
// is often the secret (https://TOKEN@host), and the value of every query
// or fragment parameter whose name looks secret (key, api_key, token,
// access_token, secret, password, sig, signature, X-Amz-*, X-Goog-*, …)
// becomes ***. The rest stays as written, so the host and the path still
// say which server it is.
func RedactURL(u string) string {
	start := 0
	if i := strings.Index(u, "://"); i >= 0 {
		start = i + len("://")
	}
	rest := u[start:]
	// The userinfo ends at the last @ before the path's query: a password
	// with a / left unescaped still counts as one.
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	var b strings.Builder
	b.WriteString(u[:start])
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		b.WriteString(Redacted)
		rest = rest[at:]
		end -= at
	}
	b.WriteString(rest[:end])
	for rest = rest[end:]; rest != ""; {
		// rest starts with ? or #: its parameters up to the next # (or the end).
		sep := rest[0]
		next := strings.IndexByte(rest[1:], '#')
		if next < 0 || sep == '#' {
			next = len(rest) - 1
		}
		b.WriteByte(sep)
		b.WriteString(redactParams(rest[1 : 1+next]))
		rest = rest[1+next:]
	}
	return b.String()
}

// redactParams redacts the secret-looking values of a&b=c&… .
func redactParams(q string) string {
	params := strings.Split(q, "&")
	for i, p := range params {
		if name, _, ok := strings.Cut(p, "="); ok && secretParam(name) {
			params[i] = name + "=" + Redacted
		}
	}
	return strings.Join(params, "&")
}

// secretWords make a parameter's value secret when its name holds one.
var secretWords = []string{"key", "token", "secret", "passw", "pwd", "signature", "credential", "auth", "session", "cookie"}

func secretParam(name string) bool {
	n := strings.ToLower(name)
	if n == "sig" || n == "code" || strings.HasPrefix(n, "x-amz-") || strings.HasPrefix(n, "x-goog-") {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactURLs returns text with every URL in it (scheme://…, up to a space,
// a quote or an angle bracket) passed through RedactURL: an error from an
// HTTP client names the URL it asked.
func RedactURLs(text string) string {
	if !strings.Contains(text, "://") {
		return text // the common case: no copy
	}
	var b strings.Builder
	for {
		i := strings.Index(text, "://")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		start := i
		for start > 0 && schemeByte(text[start-1]) {
			start--
		}
		end := i + len("://")
		if n := strings.IndexAny(text[end:], " \t\r\n\"'`<>"); n >= 0 {
			end += n
		} else {
			end = len(text)
		}
		b.WriteString(text[:start])
		b.WriteString(RedactURL(text[start:end]))
		text = text[end:]
	}
}

func schemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}
