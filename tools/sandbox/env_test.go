package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestEnvironOnWindows: Windows spells PATH "Path" and compares names
// without case, and its programs need their system's variables and find
// their home and temp dirs in variables of their own, which point at the
// private dirs; credentials and program-steering variables stay out in
// any case.
func TestEnvironOnWindows(t *testing.T) {
	parent := []string{`Path=C:\Windows;C:\Program Files\Git\bin`, `SystemRoot=C:\Windows`, `ComSpec=C:\Windows\system32\cmd.exe`,
		`PATHEXT=.COM;.EXE;.BAT`, `UserProfile=C:\Users\me`, `TEMP=C:\Users\me\AppData\Local\Temp`, `LOCALAPPDATA=C:\Users\me\AppData\Local`,
		`OpenAI_Api_Key=sk-x`, `GIT_DIR=C:\elsewhere`, `GOFLAGS=-toolexec=x`, `lc_all=C`, `Agent_LSP_Sandbox=none`}
	env := environFor(parent, "H", "T", "C", "", true)
	get := func(name string) []string {
		var vals []string
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, name) {
				vals = append(vals, v)
			}
		}
		return vals
	}
	for name, want := range map[string]string{"PATH": `C:\Windows;C:\Program Files\Git\bin`, "SYSTEMROOT": `C:\Windows`, "COMSPEC": `C:\Windows\system32\cmd.exe`,
		"PATHEXT": ".COM;.EXE;.BAT", "USERPROFILE": "H", "TEMP": "T", "TMP": "T", "HOME": "H", "TMPDIR": "T", "LC_ALL": "C"} {
		if got := get(name); !slices.Equal(got, []string{want}) {
			t.Errorf("%s = %q, want just %q", name, got, want)
		}
	}
	if got := get("LOCALAPPDATA"); len(got) != 1 || !strings.HasPrefix(got[0], "H") {
		t.Errorf("LOCALAPPDATA = %q, want one in the private home", got)
	}
	for _, gone := range []string{"OPENAI_API_KEY", "GIT_DIR", "GOFLAGS", "AGENT_LSP_SANDBOX"} {
		if got := get(gone); len(got) > 0 {
			t.Errorf("%s passed: %q", gone, got)
		}
	}
	// Elsewhere names are compared as they are: "Path" is not PATH.
	if env := environFor(parent, "H", "T", "C", "", false); slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "Path=") || strings.HasPrefix(kv, "USERPROFILE=") }) {
		t.Errorf("off Windows, Windows's names passed: %q", env)
	}
}
