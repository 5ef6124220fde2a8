package server

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite README.md's command table from the command list")

// The README's command table sits between these lines.
const (
	tableBegin = "<!-- commands: generated from server/commands.go by `go test ./server -run TestREADMECommandTable -update-readme` -->"
	tableEnd   = "<!-- /commands -->"
)

// TestREADMECommandTable: the README documents exactly the commands there
// are, with the arguments and results their types have.
func TestREADMECommandTable(t *testing.T) {
	path := filepath.Join("..", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	begin, end := strings.Index(readme, tableBegin), strings.Index(readme, tableEnd)
	if begin < 0 || end < begin {
		t.Fatalf("README.md has no command table between %q and %q", tableBegin, tableEnd)
	}
	// The table is inside a list item: indented as the marker line is.
	lineStart := strings.LastIndexByte(readme[:begin], '\n') + 1
	indent := readme[lineStart:begin]
	want := commandTable(indent)
	got := readme[begin+len(tableBegin)+1 : end]
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(readme[:begin+len(tableBegin)+1]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's command table is not the commands'; run go test ./server -run TestREADMECommandTable -update-readme\ngot:\n%s\nwant:\n%s", got, want)
}

func commandTable(indent string) string {
	var b strings.Builder
	b.WriteString(indent + "| command | arguments | result | does |\n")
	b.WriteString(indent + "| --- | --- | --- | --- |\n")
	for _, c := range commands {
		args := ""
		if c.args != nil {
			args = "`" + jsonShape(c.args) + "`"
		}
		if c.argNote != "" {
			args += " (" + c.argNote + ")"
		}
		b.WriteString(indent + "| `" + c.name + "` | " + strings.TrimSpace(args) + " | `" + jsonShape(c.result) + "` | " + c.doc + " |\n")
	}
	return b.String() + indent
}

// jsonShape is a struct's JSON fields as the README writes them:
// {prompt, uri?} where ? marks an optional one.
func jsonShape(t reflect.Type) string {
	var fields []string
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if strings.Contains(opts, "omitempty") {
			name += "?"
		}
		fields = append(fields, name)
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// TestEditorsNameOnlyCommandsThatExist: the VS Code extension, the Neovim
// plugin and the editor guides call only commands the server has.
func TestEditorsNameOnlyCommandsThatExist(t *testing.T) {
	// agent.<name> not followed by a call, field or index: the Lua test's
	// agent.setup(…) and agent.state.pending are the plugin's module.
	mention := regexp.MustCompile(`\bagent\.([a-z][A-Za-z]+)\b([.(\[]?)`)
	names := CommandNames()
	seen := 0
	err := filepath.WalkDir(filepath.Join("..", "editors"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "out") {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".json", ".ts", ".lua", ".md", ".toml", ".el", ".vim":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range mention.FindAllStringSubmatch(string(data), -1) {
			if m[2] != "" {
				continue
			}
			seen++
			if !slices.Contains(names, "agent."+m[1]) {
				t.Errorf("%s names agent.%s, which is not a command (commands: %s)", path, m[1], strings.Join(names, ", "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 10 {
		t.Fatalf("found only %d command names in editors/: is the pattern still right?", seen)
	}
}
