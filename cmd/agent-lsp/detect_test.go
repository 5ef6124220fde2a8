package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// closedPort is a loopback address nothing listens on.
func closedPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

// fakeOllama lists models at /v1/models and answers chat completions.
func fakeOllama(t *testing.T, models []string, chat *llmtest.Server) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			var data []string
			for _, m := range models {
				data = append(data, `{"id":"`+m+`","object":"model","owned_by":"library"}`)
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[`+strings.Join(data, ",")+`]}`)
			return
		}
		r.URL.Host = strings.TrimPrefix(chat.URL, "http://")
		proxy := &http.Transport{}
		r.RequestURI, r.URL.Scheme = "", "http"
		resp, err := proxy.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestAskFindsALocalModelServer(t *testing.T) {
	chat := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "Hello from the local model."})
	ollama := fakeOllama(t, []string{"nomic-embed-text:latest", "llama3.2:3b", "qwen2.5-coder:7b"}, chat)
	localServers = []localServer{{"Ollama", ollama}, {"LM Studio", closedPort(t)}}
	t.Cleanup(func() { localServers = nil })
	r := runCLI(t, map[string]string{}, "ask", "--workspace", newWorkspace(t, map[string]string{"a.txt": "a\n"}), "say hello")
	if r.code != 0 || r.stdout != "Hello from the local model.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "using qwen2.5-coder:7b from Ollama at "+ollama) {
		t.Fatalf("stderr does not say which model it found:\n%s", r.stderr)
	}
	if got := chat.Requests()[0]["model"]; got != "qwen2.5-coder:7b" {
		t.Fatalf("asked model %v", got)
	}
}

func TestAskWithNothingToTalkToSaysHowToSetUp(t *testing.T) {
	localServers = []localServer{{"Ollama", closedPort(t)}, {"vLLM", closedPort(t)}}
	t.Cleanup(func() { localServers = nil })
	r := runCLI(t, map[string]string{}, "ask", "--workspace", newWorkspace(t, nil), "hello")
	if r.code != exitUsage || r.stdout != "" || r.stderr != errNoModel.Error()+"\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, setup := range []string{"ollama", "OPENAI_API_KEY", "GEMINI_API_KEY"} {
		if !strings.Contains(r.stderr, setup) {
			t.Errorf("the message lacks the %s set-up", setup)
		}
	}
}

// The default models are the catalog's (charm.land/catwalk), each
// provider's, named or found by its key.
func TestAKeyAloneChoosesItsProviderAndDefaultModel(t *testing.T) {
	defaultGeminiModel, defaultOpenAIModel := config.DefaultModel(config.ProviderGemini), config.DefaultModel(config.ProviderOpenAI)
	groq, _ := config.KnownProvider("groq")
	if defaultGeminiModel == "" || defaultOpenAIModel == "" || groq.DefaultModel == "" {
		t.Fatalf("the catalog has no defaults: %q %q %q", defaultGeminiModel, defaultOpenAIModel, groq.DefaultModel)
	}
	for _, c := range []struct {
		name           string
		in             config.Settings
		provider, want string
	}{
		{"gemini key", config.Settings{Provider: config.ProviderOpenAI, GeminiKey: "g"}, config.ProviderGemini, defaultGeminiModel},
		{"openai key", config.Settings{Provider: config.ProviderOpenAI, OpenAIKey: "o"}, config.ProviderOpenAI, defaultOpenAIModel},
		{"configured", config.Settings{Provider: config.ProviderOpenAI, OpenAIKey: "o", Model: "mine"}, config.ProviderOpenAI, "mine"},
		// Gemini asked for without its key: OpenAI's key picks OpenAI's
		// model, on OpenAI (it was sent to Gemini).
		{"gemini without its key", config.Settings{Provider: config.ProviderGemini, OpenAIKey: "o"}, config.ProviderOpenAI, defaultOpenAIModel},
		{"a provider the catalog knows", config.Settings{Provider: "groq"}, "groq", groq.DefaultModel},
	} {
		s, err := detectModel(context.Background(), c.in, io.Discard)
		if err != nil || s.Provider != c.provider || s.Model != c.want {
			t.Errorf("%s: %s:%s %v, want %s:%s", c.name, s.Provider, s.Model, err, c.provider, c.want)
		}
	}
}

func TestBestCodingModel(t *testing.T) {
	for models, want := range map[string]string{
		"only-one":                               "only-one",
		"nomic-embed-text,llama3.1:8b":           "llama3.1:8b",
		"llama3.1:8b,deepseek-coder-v2,qwen3:8b": "deepseek-coder-v2",
		"mistral:7b,gemma2:9b":                   "mistral:7b",
	} {
		if got := bestCodingModel(strings.Split(models, ",")); got != want {
			t.Errorf("%s: %s, want %s", models, got, want)
		}
	}
}

// BenchmarkDetect measures what detection adds: with nothing listening on
// the four ports (the limit is 300 ms), and with a model configured.
func BenchmarkDetect(b *testing.B) {
	saved := localServers
	defer func() { localServers = saved }()
	localServers = []localServer{{"a", closedPort(b)}, {"b", closedPort(b)}, {"c", closedPort(b)}, {"d", closedPort(b)}}
	b.Run("NothingListens", func(b *testing.B) {
		for b.Loop() {
			if _, err := detectModel(context.Background(), config.Settings{}, io.Discard); err != errNoModel {
				b.Fatal(err)
			}
		}
	})
	b.Run("Configured", func(b *testing.B) {
		for b.Loop() {
			detectModel(context.Background(), config.Settings{Model: "m"}, io.Discard)
		}
	})
}
