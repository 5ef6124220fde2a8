package tools

import (
	"strings"
	"testing"
)

// TestSensitiveOnCaseBlindSystems: on macOS and Windows, where
// .VSCode/Tasks.JSON is .vscode/tasks.json, every sensitive file is one in
// any case, spelt as a Windows path (its relative form from a Windows
// root) or with the code points HFS+ ignores; and a Windows name that ends
// in the dot or space Windows drops is refused before it could be staged.
func TestSensitiveOnCaseBlindSystems(t *testing.T) {
	for _, r := range SensitiveRules {
		p := strings.TrimSuffix(r.Pattern, "/")
		if strings.HasSuffix(r.Pattern, "/") {
			p += "/x.json"
		}
		spellings := []string{
			strings.ToUpper(p),
			"Sub/" + swapCase(p),
			windowsStyle.rel(`C:\w`, `c:\W\Sub\`+strings.ReplaceAll(strings.ToUpper(p), "/", `\`)),
			strings.Replace(p, ".", "\u200c.", 1),
		}
		for _, s := range spellings {
			if _, ok := SensitivePath(s); !ok {
				t.Errorf("%s: %q is not sensitive", r.Pattern, s)
			}
		}
		first, rest, _ := strings.Cut(p, "/")
		for _, tail := range []string{".", " ", ". "} {
			dropped := first + tail
			if rest != "" {
				dropped += "/" + rest
			}
			if err := windowsStyle.check(strings.ReplaceAll(dropped, "/", `\`)); err == nil {
				t.Errorf("%q was accepted on Windows", dropped)
			}
			if _, ok := SensitivePath(dropped); !ok {
				t.Errorf("%q is not sensitive", dropped)
			}
		}
	}
}

func swapCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			r -= 'a' - 'A'
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
