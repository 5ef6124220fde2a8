package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/gemini"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
)

func isCompaction(body map[string]any) bool {
	msgs, _ := body["messages"].([]any)
	sys, _ := msgs[0].(map[string]any)["content"].(string)
	return strings.Contains(sys, "You compact the working memory")
}

func TestCompactionKeepsTheTaskAndRecentTurns(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), 200) // ~3 KB
	}
	w := workspace(t, files)
	reads := 0
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		if isCompaction(body) {
			return llmtest.Turn{Text: "Read f0.txt to f3.txt; each holds 200 numbered lines. Nothing changed yet."}
		}
		if reads < 6 {
			reads++
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: fmt.Sprintf(`{"path":"f%d.txt"}`, reads-1)}}}
		}
		return llmtest.Turn{Text: "All six files hold numbered lines."}
	})
	var notices []string
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}),
		ContextWindow: 6000, OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventNotice {
				notices = append(notices, e.Text)
			}
		}})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "THE TASK: describe every file")
	if err != nil || out.Answer != "All six files hold numbered lines." {
		t.Fatalf("%v %+v", err, out)
	}
	var compactedAt = -1
	for i, body := range srv.Requests() {
		if isCompaction(body) {
			compactedAt = i
			break
		}
	}
	if compactedAt < 0 || !strings.Contains(strings.Join(notices, "\n"), "[CONTEXT] compacted") {
		t.Fatalf("no compaction; notices %q", notices)
	}
	next := srv.Requests()[compactedAt+1]
	first := llmtest.FirstUserText(next)
	if !strings.HasPrefix(first, "THE TASK: describe every file") || !strings.Contains(first, "Read f0.txt to f3.txt") {
		t.Fatalf("the task and the summary must lead the next request:\n%s", first)
	}
	if n := len(next["messages"].([]any)); n > 7 {
		t.Fatalf("the next request still has %d messages", n)
	}
}

// TestSecondCompactionKeepsTheFirstSummary runs long enough to compact
// twice: the second summary is written from a transcript that starts with
// the first, so what the first compaction kept is not lost.
func TestSecondCompactionKeepsTheFirstSummary(t *testing.T) {
	const nFiles = 14
	files := map[string]string{}
	for i := range nFiles {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), 200)
	}
	w := workspace(t, files)
	reads, compactions := 0, 0
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		if isCompaction(body) {
			compactions++
			return llmtest.Turn{Text: fmt.Sprintf("SUMMARY %d: the early files hold numbered lines.", compactions)}
		}
		if reads < nFiles {
			reads++
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: fmt.Sprintf(`{"path":"f%d.txt"}`, reads-1)}}}
		}
		return llmtest.Turn{Text: "done"}
	})
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}),
		ContextWindow: 6000, MaxIterations: nFiles + 2})
	var h agent.History
	if out, err := a.Run(context.Background(), &h, "THE TASK: describe every file"); err != nil || out.Answer != "done" {
		t.Fatalf("%v %+v", err, out)
	}
	var transcripts []string
	for _, body := range srv.Requests() {
		if isCompaction(body) {
			transcripts = append(transcripts, llmtest.FirstUserText(body))
		}
	}
	if len(transcripts) < 2 {
		t.Fatalf("%d compactions, want at least two: the test proves nothing", len(transcripts))
	}
	if !strings.HasPrefix(transcripts[1], "EARLIER SUMMARY") || !strings.Contains(transcripts[1], "SUMMARY 1: the early files hold numbered lines.") {
		t.Fatalf("the second compaction does not see the first summary:\n%.500s", transcripts[1])
	}
}

func TestOversizedToolResultIsCutWithAHint(t *testing.T) {
	w := workspace(t, map[string]string{"huge.txt": strings.Repeat("0123456789abcdef\n", 4000)}) // 68 KB
	provider := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"huge.txt"}`}}},
		llmtest.Turn{Text: "done"},
	)
	a := agent.New(agent.Config{Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}), ContextWindow: 8000})
	var h agent.History
	if _, err := a.Run(context.Background(), &h, "read it"); err != nil {
		t.Fatal(err)
	}
	result := provider.Requests()[1].Messages[2].ToolResults[0].Content
	if len(result) > 8000+200 || !strings.Contains(result, "cut to fit the context window; read the rest in parts with read_file offset/limit") ||
		!strings.HasPrefix(result, "     1\t0123456789abcdef") {
		t.Fatalf("result of %d bytes: %.200q", len(result), result)
	}
}

func TestContextTooLongTriesCompactionFirst(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"b.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"c.txt"}`}}},
		llmtest.Turn{Status: 400, Body: `{"error":{"code":"context_length_exceeded","message":"maximum context length exceeded"}}`},
		llmtest.Turn{Text: "summary: read a, b and c"},
		llmtest.Turn{Text: "finished"},
	)
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "read them")
	if err != nil || out.Answer != "finished" {
		t.Fatalf("%v %+v", err, out)
	}
	if !isCompaction(srv.Requests()[4]) {
		t.Fatal("no compaction before giving up")
	}
}

// recordingProvider plays a long session: it reads a large file each turn
// for n turns, answers compaction requests, and records every request's size.
type recordingProvider struct {
	n, turns int
	peak     int
}

func (p *recordingProvider) Name() string { return "openai:gpt-4o" }
func (p *recordingProvider) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	size := agent.EstimateTokens(req.System)
	for _, m := range req.Messages {
		size += agent.EstimateTokens(m.Text)
		for _, r := range m.ToolResults {
			size += agent.EstimateTokens(r.Content)
		}
	}
	for _, s := range req.Tools {
		size += agent.EstimateTokens(string(s.Schema)) + agent.EstimateTokens(s.Description)
	}
	p.peak = max(p.peak, size)
	if strings.Contains(req.System, "You compact the working memory") {
		return llm.Response{Text: "summary of the files read so far", StopReason: llm.StopEndTurn}, nil
	}
	p.turns++
	if p.turns > p.n {
		return llm.Response{Text: "done", StopReason: llm.StopEndTurn}, nil
	}
	args, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("big%d.txt", p.turns%10)})
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c", Name: "read_file", Args: args}}, StopReason: llm.StopToolUse}, nil
}

// BenchmarkLongSession: a 60-turn session reading ~8 KB of file per turn,
// with and without compaction (a 32k window against an unbounded one);
// reports the peak request size in tokens.
func BenchmarkLongSession(b *testing.B) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("big%d.txt", i)] = strings.Repeat(fmt.Sprintf("file %d: some ordinary line of source text\n", i), 180)
	}
	root := b.TempDir()
	for name, c := range files {
		writeFile(b, root, name, c)
	}
	ws, _ := tools.NewWorkspace(root, nil)
	reg := tools.NewDefaultRegistry(ws, tools.NewPolicy(nil), nil, tools.CommandLimits{})
	for b.Loop() {
		for _, c := range []struct {
			name   string
			window int
		}{{"without-compaction", 10_000_000}, {"with-compaction-32k", 32_768}} {
			p := &recordingProvider{n: 60}
			a := agent.New(agent.Config{Provider: p, Tools: reg, MaxIterations: 70, ContextWindow: c.window})
			var h agent.History
			if _, err := a.Run(context.Background(), &h, "read the files"); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(p.peak), "peak-tokens-"+c.name)
		}
	}
}

// TestCompactionKeepsThoughtSignatures compacts a Gemini 3 run: the turns
// kept verbatim keep their signatures, so the requests after the
// compaction still pass Gemini's check.
func TestCompactionKeepsThoughtSignatures(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), 200)
	}
	w := workspace(t, files)
	reads, compactions := 0, 0
	srv := llmtest.NewGemini3Responder(t, func(body map[string]any) llmtest.Turn {
		if strings.Contains(llmtest.SystemText(body), "You compact the working memory") {
			compactions++
			return llmtest.Turn{Text: "Read some files; each holds numbered lines."}
		}
		if reads < 6 {
			reads++
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: fmt.Sprintf(`{"path":"f%d.txt"}`, reads-1)}}}
		}
		return llmtest.Turn{Text: "All six files hold numbered lines."}
	})
	p, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-3-pro-preview", APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Provider: p, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}), ContextWindow: 6000})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "THE TASK: describe every file")
	if err != nil || out.Answer != "All six files hold numbered lines." {
		t.Fatalf("%v %+v", err, out)
	}
	if compactions == 0 {
		t.Fatal("the run was never compacted: the test proves nothing")
	}
}

// TestResumedSessionKeepsThoughtSignatures stops a Gemini 3 run mid-turn
// (at its iteration cap, after a call), saves it, loads it in a new store
// (as a restarted server does) and continues it: the current turn's call
// goes back with its signature read from disk.
func TestResumedSessionKeepsThoughtSignatures(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n"})
	srv := llmtest.NewGemini3Server(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Text: "It says alpha."},
	)
	p, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-3-flash-preview", APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	registry := tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})
	var h agent.History
	agent.New(agent.Config{Provider: p, Tools: registry, MaxIterations: 1}).Run(context.Background(), &h, "what does a.txt say?")
	dir := t.TempDir()
	if err := agent.NewSessionStore(dir).Save("s1", &h); err != nil {
		t.Fatal(err)
	}
	loaded, err := agent.NewSessionStore(dir).Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	if last := loaded.Messages()[loaded.Len()-1]; last.Role != llm.RoleTool {
		t.Fatalf("the run did not stop mid-turn: %+v", last)
	}
	out, err := agent.New(agent.Config{Provider: p, Tools: registry}).Continue(context.Background(), loaded)
	if err != nil || out.Answer != "It says alpha." {
		t.Fatalf("%v %+v", err, out)
	}
}

// TestPlanStepsAndSubAgentsOnGemini3 runs plan-and-execute whose steps
// delegate to a sub-agent, all on a Gemini 3 fake that checks signatures:
// every conversation (planner, steps, sub-agent) keeps its own.
func TestPlanStepsAndSubAgentsOnGemini3(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"})
	toolTurns := map[string]int{}
	srv := llmtest.NewGemini3Responder(t, func(body map[string]any) llmtest.Turn {
		if strings.Contains(llmtest.SystemText(body), "You are the planner") {
			return llmtest.Turn{Text: `{"steps": [{"goal": "read a.txt", "done": "known"}, {"goal": "learn what b.txt says", "done": "known"}]}`}
		}
		contents := body["contents"].([]any)
		first, _ := json.Marshal(contents[0])
		key := string(first)
		toolTurns[key]++
		switch {
		case strings.Contains(key, "what does b.txt say"): // the sub-agent
			if toolTurns[key] == 1 {
				return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"b.txt"}`}}}
			}
			return llmtest.Turn{Text: "b.txt says beta."}
		case strings.Contains(key, "learn what b.txt says"):
			if toolTurns[key] == 1 {
				return llmtest.Turn{Calls: []llmtest.Call{{Name: "delegate", Args: `{"task":"what does b.txt say?"}`}}}
			}
			return llmtest.Turn{Text: "b.txt says beta (from the sub-agent)."}
		}
		if toolTurns[key] == 1 {
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}, {Name: "list_files", Args: `{}`}}}
		}
		return llmtest.Turn{Text: "a.txt says alpha."}
	})
	p, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-3-pro-preview", APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := agent.WithSubAgents(agent.Config{Provider: p, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	if err != nil {
		t.Fatal(err)
	}
	var h agent.History
	out, err := agent.New(cfg).Do(context.Background(), agent.Task{Prompt: "what do the files say?", Strategy: agent.StrategyPlan, History: &h, Workspace: w})
	if err != nil || !strings.Contains(out.Answer, "from the sub-agent") {
		t.Fatalf("%v %+v", err, out)
	}
	if len(toolTurns) != 3 {
		t.Fatalf("conversations %d, want the two steps and the sub-agent: %v", len(toolTurns), toolTurns)
	}
}
