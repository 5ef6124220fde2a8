package toolproto

import (
	"encoding/json"
	"errors"
	"strings"
)

// objectAt returns the end (exclusive) of the balanced {...} starting at
// text[i] == '{', or -1 when it never closes. Brace matching respects strings
// and escapes, so {"a": "}"} is one object.
func objectAt(text string, i int) int {
	depth := 0
	inString := false
	for j := i; j < len(text); j++ {
		c := text[j]
		if inString {
			switch c {
			case '\\':
				j++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
			if depth < 0 {
				return -1
			}
		}
	}
	return -1
}

// decodeLenient unmarshals a JSON object as models write it: trailing commas
// before } or ] are dropped (outside strings) when the strict parse fails.
func decodeLenient(s string, v any) error {
	err := json.Unmarshal([]byte(s), v)
	if err == nil {
		return nil
	}
	fixed := dropTrailingCommas(s)
	if fixed == s {
		return err
	}
	if json.Unmarshal([]byte(fixed), v) != nil {
		return err
	}
	return nil
}

func dropTrailingCommas(s string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch c {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			k := i + 1
			for k < len(s) && strings.IndexByte(" \t\r\n", s[k]) >= 0 {
				k++
			}
			if k < len(s) && (s[k] == '}' || s[k] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// stripFences removes ``` fences (with or without a language) around text.
func stripFences(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") {
		return text
	}
	t = t[3:]
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		t = t[nl+1:]
	}
	t = strings.TrimSpace(t)
	t = strings.TrimSuffix(t, "```")
	return t
}

// DecodeObject decodes the first JSON object in text that unmarshals into v,
// tolerating code fences, text around it and trailing commas: how models
// answer when asked for JSON.
func DecodeObject(text string, v any) error {
	text = stripFences(text)
	var firstErr error
	for i := strings.IndexByte(text, '{'); i >= 0; {
		if end := objectAt(text, i); end > 0 {
			err := decodeLenient(text[i:end], v)
			if err == nil {
				return nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		next := strings.IndexByte(text[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if firstErr != nil {
		return firstErr
	}
	return errors.New("no JSON object in the answer")
}
