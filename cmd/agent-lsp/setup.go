package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/catalog"
)

// setupCallTimeout bounds the set-up's test call and its model list.
const setupCallTimeout = 60 * time.Second

// setup is `agent-lsp setup`, the sign-in an ACP client runs in a terminal
// (the terminal auth method) and a user may run by hand: pick a provider,
// enter its key without echo, pick a model from the provider's list, make
// one real call, then save the choice in the user's own config (never a
// project's). Nothing is written before that call has answered; a refused
// key, no network or Ctrl-C leave the config as it was, and say why. The
// key is never printed. Exit status 0 means signed in.
func setup(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "agent-lsp setup takes no arguments: it asks its questions\n")
		return exitUsage
	}
	p := newPrompter(ctx, stdin, stdout)
	fmt.Fprintf(stdout, "agent-lsp setup: sign in to a model provider.\nYour choice is saved in %s (readable by you alone) once a test call has worked.\n\n", config.UserConfigPath(env))
	s, err := signIn(ctx, p, env)
	if err == nil {
		var path string
		path, err = config.SaveSignIn(env, s)
		if err == nil {
			fmt.Fprintf(stdout, "\nSaved to %s: %s with %s. Start a new session in your editor to use it.\n", path, s.Provider, s.Model)
			overridden(stdout, env)
			return exitOK
		}
	}
	if errors.Is(err, errCancelled) {
		fmt.Fprintln(stderr, "\nagent-lsp setup: cancelled; your configuration is unchanged.")
	} else {
		fmt.Fprintf(stderr, "\nagent-lsp setup: %v\nYour configuration is unchanged.\n", err)
	}
	return exitFailed
}

// signIn asks the questions and makes the test call: what to save.
func signIn(ctx context.Context, p *prompter, env func(string) string) (config.SignIn, error) {
	choice, err := pickProvider(ctx, p)
	if err != nil {
		return config.SignIn{}, err
	}
	s := config.SignIn{Provider: choice.provider, BaseURL: choice.baseURL}
	if s.Key, err = askKey(p, choice); err != nil {
		return s, err
	}
	settings := config.Settings{Provider: s.Provider, BaseURL: s.BaseURL, Keys: map[string]string{s.Provider: s.Key}}
	settings.OpenAIKey, settings.GeminiKey = keyIf(s, config.ProviderOpenAI), keyIf(s, config.ProviderGemini)
	if settings.Model, err = pickModel(ctx, p, settings, choice); err != nil {
		return s, err
	}
	s.Model = settings.Model
	fmt.Fprintf(p.out, "Asking %s for a one-word answer…\n", settings.Model)
	if err := testCall(ctx, settings); err != nil {
		return s, explain(err, choice)
	}
	fmt.Fprintln(p.out, "It answered.")
	return s, nil
}

func keyIf(s config.SignIn, provider string) string {
	if s.Provider == provider {
		return s.Key
	}
	return ""
}

// providerChoice is an entry of the provider menu.
type providerChoice struct {
	label, name, provider, baseURL string // name: in messages
	keyEnv, keyLink                string
	needsKey                       bool
}

// pickProvider offers OpenAI, Gemini, another provider the catalog knows,
// any OpenAI-compatible server, and the local servers found running.
func pickProvider(ctx context.Context, p *prompter) (providerChoice, error) {
	choices := []providerChoice{
		{label: "OpenAI", name: "OpenAI", provider: config.ProviderOpenAI, keyEnv: "OPENAI_API_KEY", keyLink: "https://platform.openai.com/api-keys", needsKey: true},
		{label: "Google Gemini", name: "Gemini", provider: config.ProviderGemini, keyEnv: "GEMINI_API_KEY", keyLink: "https://aistudio.google.com/apikey", needsKey: true},
		{label: "Another provider the catalog knows (Groq, DeepSeek, OpenRouter, xAI, …)"},
		{label: "An OpenAI-compatible server at an address you give (vLLM, LiteLLM, a gateway, …)", provider: config.ProviderOpenAI},
	}
	for _, srv := range detectLocalServers(ctx) {
		choices = append(choices, providerChoice{label: fmt.Sprintf("%s, running at %s", srv.name, srv.baseURL), name: srv.name, provider: config.ProviderOpenAI, baseURL: srv.baseURL})
	}
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = c.label
	}
	fmt.Fprintln(p.out, "Which provider?")
	i, err := p.choose("Provider", labels, 0)
	if err != nil {
		return providerChoice{}, err
	}
	switch i {
	case 2:
		return pickKnownProvider(p)
	case 3:
		c := choices[3]
		c.baseURL, err = askServer(p)
		c.name = "the server at " + c.baseURL
		return c, err
	}
	return choices[i], nil
}

// pickKnownProvider asks for a provider of the catalog by name.
func pickKnownProvider(p *prompter) (providerChoice, error) {
	var names []string
	for _, k := range catalog.Providers() {
		if k.ID != config.ProviderOpenAI && k.ID != config.ProviderGemini {
			names = append(names, k.ID)
		}
	}
	fmt.Fprintf(p.out, "Known providers: %s\n", strings.Join(names, ", "))
	for {
		name, err := p.ask("Provider name", "")
		if err != nil {
			return providerChoice{}, err
		}
		if k, ok := catalog.Find(strings.ToLower(name)); ok && slices.Contains(names, k.ID) {
			return providerChoice{label: k.Name, name: k.Name, provider: k.ID, keyEnv: k.KeyEnv, needsKey: true}, nil
		}
		fmt.Fprintf(p.out, "%q is not one of them.\n", name)
	}
}

// askServer asks for an OpenAI-compatible server's address.
func askServer(p *prompter) (string, error) {
	for {
		addr, err := p.ask("Server address (e.g. http://localhost:8000/v1)", "")
		if err != nil {
			return "", err
		}
		if u, err := url.Parse(addr); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return strings.TrimSuffix(addr, "/"), nil
		}
		fmt.Fprintln(p.out, "Give an http:// or https:// address, with the /v1 the server answers on.")
	}
}

// askKey asks for the provider's key, without echo; a server may take none.
func askKey(p *prompter, c providerChoice) (string, error) {
	if !c.needsKey {
		return p.secret("API key, if the server takes one (hidden; Enter for none)")
	}
	if c.keyLink != "" {
		fmt.Fprintf(p.out, "Get a key at %s\n", c.keyLink)
	}
	for {
		key, err := p.secret(fmt.Sprintf("%s API key (hidden as you type)", c.name))
		if err != nil || key != "" {
			return key, err
		}
		fmt.Fprintf(p.out, "%s needs a key (or set %s in the environment instead of signing in).\n", c.name, c.keyEnv)
	}
}

// pickModel lists the provider's models, those the catalog knows first with
// their window, price and whether they take images, and asks for one; its
// default is the catalog's, else the best coding model listed.
func pickModel(ctx context.Context, p *prompter, s config.Settings, c providerChoice) (string, error) {
	fmt.Fprintf(p.out, "Asking %s for its models…\n", c.name)
	ctx, cancel := context.WithTimeout(ctx, setupCallTimeout)
	defer cancel()
	listed, err := listProviderModels(ctx, s)
	if err != nil {
		return "", explain(err, c)
	}
	if len(listed) == 0 {
		return "", fmt.Errorf("%s lists no models", c.name)
	}
	ordered := orderForPicking(s, listed)
	def := 0
	if d := config.DefaultModel(s.Provider); s.BaseURL == "" && slices.Contains(ordered, d) {
		def = slices.Index(ordered, d)
	} else {
		def = slices.Index(ordered, bestCodingModel(ordered))
	}
	labels := make([]string, len(ordered))
	for i, m := range ordered {
		s.Model = m
		labels[i] = m + "  (" + s.Facts().String() + ")"
	}
	fmt.Fprintln(p.out, "Which model?")
	i, err := p.choose("Model", labels, def)
	return ordered[i], err
}

// orderForPicking puts the models the catalog knows first, in its order.
func orderForPicking(s config.Settings, listed []string) []string {
	known := func(m string) bool {
		s.Model = m
		_, ok := s.CatalogModel()
		return ok
	}
	out := slices.Clone(listed)
	slices.SortStableFunc(out, func(a, b string) int {
		ka, kb := known(a), known(b)
		switch {
		case ka == kb:
			return strings.Compare(a, b)
		case ka:
			return -1
		}
		return 1
	})
	return out
}

// testCall asks the model for one word: the key, the address and the
// model all work.
func testCall(ctx context.Context, s config.Settings) error {
	ctx, cancel := context.WithTimeout(ctx, setupCallTimeout)
	defer cancel()
	p, err := baseProvider(ctx, s)
	if err != nil {
		return err
	}
	_, err = p.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "Reply with the single word: ready"}}})
	return err
}

// explain says in the user's words why a call to the provider failed.
func explain(err error, c providerChoice) error {
	switch {
	case errors.Is(err, context.Canceled):
		return errCancelled
	case errors.Is(err, llm.ErrUnauthorized):
		return fmt.Errorf("%s refused the key: %w", c.name, err)
	case errors.Is(err, llm.ErrUnavailable), errors.Is(err, llm.ErrTimeout):
		return fmt.Errorf("could not reach %s (no network, or the server is down): %w", c.name, err)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// overridden warns where the environment wins over what was just saved.
func overridden(out io.Writer, env func(string) string) {
	for _, v := range []string{"AGENT_LSP_PROVIDER", "AGENT_LSP_MODEL", "OPENAI_BASE_URL"} {
		if env(v) != "" {
			fmt.Fprintf(out, "Note: %s is set in this environment and wins over the saved setting where it is set.\n", v)
		}
	}
}
