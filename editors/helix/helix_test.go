// Package helix_test checks the shipped Helix configuration against the real server.
package helix_test

import (
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

type languages struct {
	LanguageServer map[string]struct {
		Command string         `toml:"command"`
		Args    []string       `toml:"args"`
		Config  map[string]any `toml:"config"`
	} `toml:"language-server"`
	Language []struct {
		Name            string   `toml:"name"`
		LanguageServers []string `toml:"language-servers"`
	} `toml:"language"`
}

func TestLanguagesTOMLNamesTheServerBesideEachLanguagesOwn(t *testing.T) {
	var cfg languages
	md, err := toml.DecodeFile("languages.toml", &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("keys this test does not know: %v", u)
	}
	ls, ok := cfg.LanguageServer["agent-lsp"]
	if !ok || ls.Command != "agent-lsp" || !slices.Equal(ls.Args, []string{"serve"}) {
		t.Fatalf("[language-server.agent-lsp] = %+v", ls)
	}
	if len(cfg.Language) < 5 {
		t.Fatalf("only %d languages", len(cfg.Language))
	}
	for _, l := range cfg.Language {
		n := len(l.LanguageServers)
		if n < 2 || l.LanguageServers[n-1] != "agent-lsp" || slices.Index(l.LanguageServers, "agent-lsp") != n-1 {
			t.Errorf("%s: language-servers %v must keep the language's own servers and add agent-lsp last", l.Name, l.LanguageServers)
		}
	}
}

// The commands the README tells Helix users to run must be ones the server offers.
func TestREADMECommandsExist(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	mentioned := map[string]bool{}
	for _, m := range regexp.MustCompile(`agent\.[a-zA-Z]+`).FindAllString(string(readme), -1) {
		mentioned[m] = true
	}
	state := t.TempDir()
	srv := server.New(server.Options{Env: func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] }, CacheDir: t.TempDir()})
	editor := servertest.Connect(t, func(rwc io.ReadWriteCloser) { srv.Serve(context.Background(), rwc) })
	init := editor.Initialize(t.TempDir(), servertest.Caps{NoMessageRequest: true}, nil)
	offered := init.Capabilities.ExecuteCommandProvider.Commands
	var names []string
	for m := range mentioned {
		names = append(names, m)
		if !slices.Contains(offered, m) {
			t.Errorf("README mentions %s, which the server does not offer (%v)", m, offered)
		}
	}
	sort.Strings(names)
	// The guide works from the code-action menu; the few commands it still
	// names are the ones without an action.
	if len(names) < 3 {
		t.Fatalf("README mentions only %v", names)
	}
}
