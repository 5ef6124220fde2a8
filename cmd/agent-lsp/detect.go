package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

// localServer is an OpenAI-compatible server people run on their machine.
type localServer struct{ name, baseURL string }

// localServers are looked for, on loopback only, when nothing is configured.
var localServers = []localServer{
	{"Ollama", "http://127.0.0.1:11434/v1"},
	{"LM Studio", "http://127.0.0.1:1234/v1"},
	{"llama.cpp", "http://127.0.0.1:8080/v1"},
	{"vLLM", "http://127.0.0.1:8000/v1"},
}

// detectTimeout bounds the whole look-up: all servers are asked at once.
const detectTimeout = 300 * time.Millisecond

// errNoModel is what a fresh machine with nothing to talk to gets; a
// sign-in fixes it (config.ErrSignIn: ACP answers auth_required).
var errNoModel = config.SignInError(`no model configured, and no local model server found. One of:
  agent-lsp setup                                     # sign in: pick a provider, enter its key, pick a model
  ollama pull qwen2.5-coder && ollama serve          # a local model (Ollama, LM Studio, llama.cpp and vLLM are found on their usual ports)
  export OPENAI_API_KEY=sk-...                        # OpenAI (the catalog's default model; AGENT_LSP_MODEL picks another)
  export GEMINI_API_KEY=...                           # Gemini (the catalog's default model; AGENT_LSP_MODEL picks another)`)

// detectModel fills in the model when none is configured: the catalog's
// default of the provider named, or of the one whose key is set, else the
// model of a local server (saying which on stderr). Settings with a model
// are returned as they are.
func detectModel(ctx context.Context, s config.Settings, stderr io.Writer) (config.Settings, error) {
	if s.Model != "" {
		return s, nil
	}
	switch {
	case s.BaseURL != "":
		return pickServerModel(ctx, s, localServer{"the configured server", s.BaseURL}, stderr)
	case s.Provider != config.ProviderOpenAI && s.Provider != config.ProviderGemini:
		s.Model = config.DefaultModel(s.Provider) // a known provider's; Validate names an unknown one
	case s.Provider == config.ProviderGemini && s.GeminiKey != "", s.GeminiKey != "" && s.OpenAIKey == "":
		s.Provider, s.Model = config.ProviderGemini, config.DefaultModel(config.ProviderGemini)
	case s.OpenAIKey != "": // also where Gemini was asked for without its key
		s.Provider, s.Model = config.ProviderOpenAI, config.DefaultModel(config.ProviderOpenAI)
	default:
		return pickLocalModel(ctx, s, stderr)
	}
	if s.Model == "" {
		return s, nil
	}
	fmt.Fprintf(stderr, "[AGENT] no model configured: using %s:%s (AGENT_LSP_MODEL picks another)\n", s.Provider, s.Model)
	return s, nil
}

func pickServerModel(ctx context.Context, s config.Settings, srv localServer, stderr io.Writer) (config.Settings, error) {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	models, err := listModels(ctx, srv.baseURL)
	if err != nil || len(models) == 0 {
		return s, fmt.Errorf("no model configured and %s (%s) lists none: set AGENT_LSP_MODEL", srv.name, llm.RedactURL(srv.baseURL))
	}
	s.Model = bestCodingModel(models)
	fmt.Fprintf(stderr, "[AGENT] no model configured: using %s from %s (AGENT_LSP_MODEL picks another)\n", s.Model, llm.RedactURL(srv.baseURL))
	return s, nil
}

// pickLocalModel takes the first local server, in localServers' order,
// that answers with a model.
func pickLocalModel(ctx context.Context, s config.Settings, stderr io.Writer) (config.Settings, error) {
	found := detectLocalServers(ctx)
	if len(found) == 0 {
		return s, errNoModel
	}
	srv := found[0]
	s.Provider, s.BaseURL, s.Model = config.ProviderOpenAI, srv.baseURL, bestCodingModel(srv.models)
	fmt.Fprintf(stderr, "[AGENT] no model configured: using %s from %s at %s (AGENT_LSP_MODEL picks another)\n", s.Model, srv.name, llm.RedactURL(srv.baseURL))
	return s, nil
}

// runningServer is a local server that answered, with its models.
type runningServer struct {
	localServer
	models []string
}

// detectLocalServers asks every local server at once (detectTimeout in
// all) and returns those that list a model, in localServers' order.
func detectLocalServers(ctx context.Context) []runningServer {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	found := make([][]string, len(localServers))
	var wg sync.WaitGroup
	for i, srv := range localServers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i], _ = listModels(ctx, srv.baseURL)
		}()
	}
	wg.Wait()
	var out []runningServer
	for i, models := range found {
		if len(models) > 0 {
			out = append(out, runningServer{localServers[i], models})
		}
	}
	return out
}

// listModels reads an OpenAI-compatible server's model list through the
// same provider a run would use (its Models; no key needed locally).
func listModels(ctx context.Context, baseURL string) ([]string, error) {
	p, err := openai.New(openai.Config{Model: "listing", BaseURL: baseURL}) // a model is needed to build it, not to list
	if err != nil {
		return nil, err
	}
	return p.Models(ctx)
}

// codingHints rank model names: a coding model first, then families that
// call tools well; embedding models never.
var codingHints = []string{"coder", "code", "devstral", "qwen3", "qwen2.5", "deepseek", "gpt-oss", "llama3", "mistral"}

// bestCodingModel picks the only model, or the best coding one.
func bestCodingModel(models []string) string {
	rank := func(m string) int {
		lower := strings.ToLower(m)
		if strings.Contains(lower, "embed") {
			return len(codingHints) + 1
		}
		for i, h := range codingHints {
			if strings.Contains(lower, h) {
				return i
			}
		}
		return len(codingHints)
	}
	sorted := append([]string(nil), models...)
	sort.SliceStable(sorted, func(i, j int) bool { return rank(sorted[i]) < rank(sorted[j]) })
	return sorted[0]
}
