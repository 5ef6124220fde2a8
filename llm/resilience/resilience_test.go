package resilience_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
)

// fast keeps the backoff's shape at a scale tests can afford.
var fast = resilience.RetryOptions{Base: time.Millisecond, Max: 8 * time.Millisecond, MaxRetryAfter: 20 * time.Millisecond,
	AttemptTimeout: 2 * time.Second, Jitter: func() float64 { return 0.5 }}

func provider(t *testing.T, srv *llmtest.Server, model string) llm.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{Model: model, BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var hello = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}}}

type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) ctx() context.Context {
	return llm.WithNotify(context.Background(), func(m string) { n.mu.Lock(); n.msgs = append(n.msgs, m); n.mu.Unlock() })
}

func (n *notices) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.msgs, "\n")
}

func TestRetryRecoversFromTransientFaults(t *testing.T) {
	ok := llmtest.Turn{Text: "fine"}
	cases := []struct {
		name   string
		faults []llmtest.Turn
		stream bool
	}{
		{"429 with Retry-After", []llmtest.Turn{{Status: 429, Header: map[string]string{"Retry-After": "0.01"}, Body: `{"error":{"message":"slow down"}}`}}, false},
		{"503 streak", []llmtest.Turn{{Status: 503, Body: `{}`}, {Status: 503, Body: `{}`}, {Status: 502, Body: `{}`}}, false},
		{"408 and 504", []llmtest.Turn{{Status: 408, Body: `{}`}, {Status: 504, Body: `{}`}}, false},
		{"hanging server", []llmtest.Turn{{Delay: 30 * time.Second}}, false},
		{"connection closed mid-stream", []llmtest.Turn{{CloseMidStream: true}}, true},
		{"malformed JSON body", []llmtest.Turn{{RawBody: `{"choices": [{"message": {"content": "oops`}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, append(c.faults, ok)...)
			opts := fast
			if c.name == "hanging server" {
				opts.AttemptTimeout = 200 * time.Millisecond
			}
			p := resilience.Retry(provider(t, srv, "m"), opts)
			req := hello
			if c.stream {
				req.OnText = func(string) {}
			}
			var n notices
			resp, err := p.Chat(n.ctx(), req)
			if err != nil || resp.Text != "fine" {
				t.Fatalf("%v %+v", err, resp)
			}
			if got := len(srv.Requests()); got != len(c.faults)+1 {
				t.Fatalf("%d requests, want %d", got, len(c.faults)+1)
			}
			if strings.Count(n.all(), "retry ") != len(c.faults) {
				t.Fatalf("retries not reported:\n%s", n.all())
			}
		})
	}
}

func TestRetryGivesUpOnPermanentErrorsAndAfterMaxAttempts(t *testing.T) {
	for _, status := range []int{400, 401, 403} {
		srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: status, Body: `{"error":{"message":"no"}}`})
		if _, err := resilience.Retry(provider(t, srv, "m"), fast).Chat(context.Background(), hello); err == nil || len(srv.Requests()) != 1 {
			t.Fatalf("%d: retried (%d requests) or succeeded: %v", status, len(srv.Requests()), err)
		}
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 400, Body: `{"error":{"code":"context_length_exceeded","message":"too long"}}`})
	if _, err := resilience.Retry(provider(t, srv, "m"), fast).Chat(context.Background(), hello); !errors.Is(err, llm.ErrContextTooLong) || len(srv.Requests()) != 1 {
		t.Fatalf("context too long: %v", err)
	}
	var faults []llmtest.Turn
	for range 5 {
		faults = append(faults, llmtest.Turn{Status: 503, Body: `{}`})
	}
	srv = llmtest.NewOpenAIServer(t, faults...)
	if _, err := resilience.Retry(provider(t, srv, "m"), fast).Chat(context.Background(), hello); !errors.Is(err, llm.ErrUnavailable) || len(srv.Requests()) != 5 {
		t.Fatalf("after the default 5 attempts (waits of 1, 2, 4, 8 units): %v (%d requests)", err, len(srv.Requests()))
	}
}

func TestCancellationDuringBackoffReturnsAtOnce(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 429, Header: map[string]string{"Retry-After": "30"}, Body: `{}`})
	opts := fast
	opts.MaxRetryAfter = time.Minute
	p := resilience.Retry(provider(t, srv, "m"), opts)
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan struct{})
	ctx = llm.WithNotify(ctx, func(string) { close(waiting) })
	done := make(chan error)
	go func() { _, err := p.Chat(ctx, hello); done <- err }()
	<-waiting
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second): // the wait was 30 s: anything near it means the wait ignored ctx
		t.Fatal("cancellation did not interrupt the backoff")
	}
}

func TestFallbackContinuesWithTheSameHistory(t *testing.T) {
	primary := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 401, Body: `{"error":{"message":"bad key"}}`})
	backup := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "answered by the backup"}, llmtest.Turn{Text: "still the backup"})
	chain := resilience.Chain(resilience.Options{Retry: fast},
		resilience.Tier{Provider: provider(t, primary, "primary")},
		resilience.Tier{Provider: provider(t, backup, "cheap"), Degraded: true})
	req := llm.Request{System: "sys", Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "read a.txt"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Args: []byte(`{"path":"a.txt"}`)}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "call_1", Name: "read_file", Content: "alpha"}}},
	}}
	var n notices
	resp, err := chain.Chat(n.ctx(), req)
	if err != nil || resp.Text != "answered by the backup" {
		t.Fatalf("%v %+v", err, resp)
	}
	if !strings.Contains(n.all(), "openai:primary failed (unauthorized, HTTP 401); switching to openai:cheap — degraded mode") {
		t.Fatalf("switch not reported:\n%s", n.all())
	}
	if p, b := primary.Requests()[0]["messages"], backup.Requests()[0]["messages"]; !equalJSON(p, b) {
		t.Fatalf("history changed on the way:\n%v\n%v", p, b)
	}
	if _, err := chain.Chat(context.Background(), req); err != nil || len(primary.Requests()) != 1 {
		t.Fatalf("the run must stay on the tier that works: %v, primary asked %d times", err, len(primary.Requests()))
	}
	if chain.Name() != "openai:cheap" {
		t.Fatalf("name %q", chain.Name())
	}
}

func TestAllTiersFailing(t *testing.T) {
	a := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 401, Body: `{}`})
	b := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 403, Body: `{}`})
	_, err := resilience.Chain(resilience.Options{Retry: fast}, resilience.Tier{Provider: provider(t, a, "a")}, resilience.Tier{Provider: provider(t, b, "b")}).Chat(context.Background(), hello)
	var all *resilience.AllFailedError
	if !errors.As(err, &all) || len(all.Errs) != 2 || !errors.Is(err, llm.ErrUnauthorized) {
		t.Fatalf("%v", err)
	}
}

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func TestBreakerOpensFailsFastAndHalfOpens(t *testing.T) {
	var faults []llmtest.Turn
	for range 5 {
		faults = append(faults, llmtest.Turn{Status: 503, Body: `{}`})
	}
	srv := llmtest.NewOpenAIServer(t, append(faults, llmtest.Turn{Text: "back"}, llmtest.Turn{Text: "again"})...)
	c := &clock{now: time.Unix(1_000_000, 0)}
	b := resilience.NewBreaker(provider(t, srv, "m"), resilience.BreakerOptions{Threshold: 5, Cooldown: 30 * time.Second, Now: c.Now})
	for range 5 {
		b.Chat(context.Background(), hello)
	}
	if b.State() != resilience.Open {
		t.Fatalf("state %s after 5 failures", b.State())
	}
	if _, err := b.Chat(context.Background(), hello); !errors.Is(err, llm.ErrCircuitOpen) || len(srv.Requests()) != 5 {
		t.Fatalf("open breaker must fail fast: %v (%d requests)", err, len(srv.Requests()))
	}
	c.now = c.now.Add(31 * time.Second)
	if b.State() != resilience.HalfOpen {
		t.Fatalf("state %s after the cooldown", b.State())
	}
	if resp, err := b.Chat(context.Background(), hello); err != nil || resp.Text != "back" || b.State() != resilience.Closed {
		t.Fatalf("trial: %v %+v %s", err, resp, b.State())
	}
	// An open breaker makes the retry layer give up at once.
	if llm.Transient(&llm.Error{Kind: llm.KindCircuitOpen}) {
		t.Fatal("circuit open must not be retried")
	}
}

func equalJSON(a, b any) bool {
	return strings.EqualFold(strings.TrimSpace(toJSON(a)), strings.TrimSpace(toJSON(b)))
}
