package tools

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite README.md's sensitive-file table from SensitiveRules")

const (
	sensitiveBegin = "<!-- sensitive files: generated from tools/changeset.go by `go test ./tools -run TestREADMESensitiveTable -update-readme` -->"
	sensitiveEnd   = "<!-- /sensitive files -->"
)

// TestREADMESensitiveTable: the README lists exactly the sensitive files
// there are, with their reasons.
func TestREADMESensitiveTable(t *testing.T) {
	path := filepath.Join("..", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	begin, end := strings.Index(readme, sensitiveBegin), strings.Index(readme, sensitiveEnd)
	if begin < 0 || end < begin {
		t.Fatalf("README.md has no sensitive-file table between %q and %q", sensitiveBegin, sensitiveEnd)
	}
	var b strings.Builder
	b.WriteString("| file (at any depth, any case) | why |\n| --- | --- |\n")
	for _, r := range SensitiveRules {
		what := "`" + r.Pattern + "`"
		if strings.HasSuffix(r.Pattern, "/") {
			what += " (every file under it)"
		}
		b.WriteString("| " + what + " | " + r.Why + " |\n")
	}
	want, got := b.String(), readme[begin+len(sensitiveBegin)+1:end]
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(readme[:begin+len(sensitiveBegin)+1]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's sensitive-file table is not SensitiveRules; run go test ./tools -run TestREADMESensitiveTable -update-readme\ngot:\n%s\nwant:\n%s", got, want)
}

// sampleOf is a path each rule names, two directories deep and in another
// case, as a repository could hold it.
func sampleOf(r SensitiveRule) string {
	p := "Sub/Dir/" + strings.ToUpper(r.Pattern[:1]) + r.Pattern[1:]
	if strings.HasSuffix(p, "/") {
		p += "x/file.yml"
	}
	return p
}

func TestEverySensitiveRuleMatchesWhatItNames(t *testing.T) {
	for _, r := range SensitiveRules {
		if why, ok := SensitivePath(sampleOf(r)); !ok || why == "" {
			t.Errorf("%s (%s) is not sensitive", sampleOf(r), r.Pattern)
		}
	}
	for _, p := range []string{"main.go", "docs/CLAUDE.md.txt", "cursor/x", ".github/README.md", "azure-pipelines.yml.bak", "cargo/config.toml", "src/.vscode.go"} {
		if why, ok := SensitivePath(p); ok {
			t.Errorf("%s is sensitive (%s)", p, why)
		}
	}
}
