package config

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite README.md's settings table from the settings table")

const (
	settingsBegin = "<!-- settings: generated from agent/config/settings.go by `go test ./agent/config -run TestREADMESettingsTable -update-readme` -->"
	settingsEnd   = "<!-- /settings -->"
)

// TestEverySettingHasOneRow: every field of Settings but the secrets has
// exactly one row of the table, and every row is a setting a layer may set
// in a way its field can hold.
func TestEverySettingHasOneRow(t *testing.T) {
	rows := map[int]int{}
	for _, r := range table {
		rows[r.field]++
		f := reflect.TypeFor[Settings]().Field(r.field)
		if r.Doc == "" || r.Untrusted.Says == "" {
			t.Errorf("%s: no description or no rule for untrusted layers", r.TOML)
		}
		if r.UserOnly && (r.JSON != "" || r.Untrusted.Says != "no") {
			t.Errorf("%s: only the user's file sets it, yet an editor or an untrusted project may", r.TOML)
		}
		if r.Enum != nil && f.Type.Kind() != reflect.String {
			t.Errorf("%s: values listed for a %s", r.TOML, f.Type)
		}
		if r.Untrusted.Says == lowerOnly.Says && f.Type.Kind() != reflect.Int {
			t.Errorf("%s: a limit on a %s", r.TOML, f.Type)
		}
	}
	st := reflect.TypeFor[Settings]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Tag.Get("toml") == "-" {
			if f.Tag.Get("json") != "-" {
				t.Errorf("%s: no config file sets it, yet an editor may", f.Name)
			}
			continue // a secret, from the environment only
		}
		if rows[i] != 1 {
			t.Errorf("Settings.%s (%s) has %d rows in the settings table, want 1", f.Name, f.Tag.Get("toml"), rows[i])
		}
	}
}

// TestEnvironmentSetsWhatTheTableSays: each row's environment variable
// reaches its field.
func TestEnvironmentSetsWhatTheTableSays(t *testing.T) {
	for _, r := range table {
		if r.Env == "" {
			continue
		}
		value := "7"
		switch {
		case r.Enum != nil:
			value = r.Enum[len(r.Enum)-1]
		case strings.Contains(r.Doc, "provider:model"):
			value = "openai:m"
		}
		s, _, err := Load("", envOf(map[string]string{r.Env: value}))
		if v := r.value(&s); err != nil || !strings.Contains(fmt.Sprint(v), value) {
			t.Errorf("%s=%s: %s is %v (%v)", r.Env, value, r.TOML, r.value(&s), err)
		}
	}
}

// TestREADMESettingsTable: README.md's settings table is the settings
// table; -update-readme rewrites it.
func TestREADMESettingsTable(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	begin, end := strings.Index(readme, settingsBegin), strings.Index(readme, settingsEnd)
	if begin < 0 || end < begin {
		t.Fatalf("README.md has no settings table between %q and %q", settingsBegin, settingsEnd)
	}
	want, got := readmeTable(), readme[begin+len(settingsBegin)+1:end]
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(readme[:begin+len(settingsBegin)+1]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's settings table is not the settings table; run go test ./agent/config -run TestREADMESettingsTable -update-readme\ngot:\n%s\nwant:\n%s", got, want)
}

func readmeTable() string {
	var b strings.Builder
	b.WriteString("| config file | editor | environment | type | default |")
	for _, l := range Layers()[1:] {
		b.WriteString(" " + l.String() + " |")
	}
	b.WriteString(" what |\n|" + strings.Repeat(" --- |", 6+len(Layers())-1) + "\n")
	code := func(s string) string {
		if s == "" {
			return "—"
		}
		return "`" + s + "`"
	}
	for _, r := range table {
		typ := r.Type()
		if r.Enum != nil {
			typ = strings.Join(r.Enum, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |", code(r.TOML), code(r.JSON), code(r.Env), typ, readmeDefault(r.Default))
		for _, l := range Layers()[1:] {
			b.WriteString(" " + r.MaySet(l) + " |")
		}
		b.WriteString(" " + strings.ReplaceAll(r.Doc, "|", `\|`) + " |\n")
	}
	return b.String()
}

func readmeDefault(d any) string {
	switch d := d.(type) {
	case nil:
		return "—"
	case note:
		return string(d)
	}
	return fmt.Sprintf("`%v`", d)
}

// TestEveryRowIsReadMergedAndFiltered: each setting, set in a config file
// or LSP settings, reaches its field, survives Merge unless only the user's
// file may set it, and survives an untrusted layer's filter exactly when its
// row says yes (a conditional rule has its own tests).
func TestEveryRowIsReadMergedAndFiltered(t *testing.T) {
	for _, r := range table {
		literal := map[string]string{"string": `"x"`, "integer": "7", "boolean": "true", "list of strings": `["x"]`}[r.Type()]
		if r.Enum != nil {
			literal = `"` + r.Enum[len(r.Enum)-1] + `"`
		}
		if literal == "" {
			continue // a group or sandbox_network: tested on their own
		}
		var fromFile Settings
		if _, err := toml.Decode(r.TOML+" = "+literal, &fromFile); err != nil || !isSet(r.value(&fromFile)) {
			t.Errorf("%s = %s: not read (%v)", r.TOML, literal, err)
			continue
		}
		if r.JSON != "" {
			var fromEditor Settings
			if err := json.Unmarshal([]byte(`{"`+r.JSON+`": `+literal+`}`), &fromEditor); err != nil || !reflect.DeepEqual(fromEditor, fromFile) {
				t.Errorf(`{"%s": %s}: %+v (%v), want %+v`, r.JSON, literal, fromEditor, err, fromFile)
			}
		}
		if merged := Merge(Settings{}, fromFile); isSet(r.value(&merged)) == r.UserOnly {
			t.Errorf("%s: merged %v, user file only %v", r.TOML, r.value(&merged), r.UserOnly)
		}
		filtered := fromFile
		filterUntrusted("project", "", Settings{Provider: ProviderOpenAI}, &filtered)
		switch says := r.MaySet(UntrustedProject); {
		case says == "yes" && !isSet(r.value(&filtered)), says == "no" && !r.UserOnly && isSet(r.value(&filtered)):
			t.Errorf("%s: untrusted project may set it: %s, yet filtered to %v", r.TOML, says, r.value(&filtered))
		}
	}
}
