// Package agentruntest holds the run contract's scenarios: one scripted
// model per way a run can end, played on every wire (the CLI's ask, the
// language server, ACP) by that wire's own test, each asserting the same
// outcome through Check. A wire whose outcome differs says so in the
// scenario's Differs, with the reason; nothing else may differ.
package agentruntest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// The wires, as Differs names them.
const (
	CLI = "cli"
	LSP = "lsp"
	ACP = "acp"
)

// Files is the workspace every scenario starts from.
var Files = map[string]string{"a.txt": "a\n"}

// Scenario is one way a run can end.
type Scenario struct {
	Name string
	// Mode is the run's mode; "" is the default (code).
	Mode string
	// Env is added to the wire's environment; Config is the user's own
	// config.toml (settings only the user may set, such as plan_confirm).
	Env    map[string]string
	Config string
	Prompt string
	// Turns are the model's answers, in order, over both prompts.
	Turns []llmtest.Turn
	// CancelAt cancels the run once the model got this many requests
	// (the next answer is held back until then); 0: no cancel.
	CancelAt int
	// Second, when set, is asked in the same conversation after the first
	// run's proposal was discarded (declined).
	Second string
	Want   Want
	// Differs names the wires whose outcome differs, each with why.
	Differs map[string]string
}

// Want is the outcome every wire must show.
type Want struct {
	Ending agentrun.Ending
	// Answer is in what the user is shown.
	Answer string
	// Offered are the files of the proposal offered for review, sorted;
	// nil: none is offered.
	Offered []string
	// ToolsLack are tools the model was not offered.
	ToolsLack []string
	// Told is in the second task as the model got it.
	Told string
}

// Got is what a wire's driver saw.
type Got struct {
	Ending  agentrun.Ending
	Answer  string
	Offered []string
	Tools   []string // offered to the model in its first request
	Second  string   // the second task as the model got it
}

// writeB stages b.txt.
var writeB = llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"b.txt","content":"b\n"}`}}}

// readA reads a.txt: asked three times, it gives the same result three times.
var readA = llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}

// held is an answer the model never gives before the run is cancelled.
var held = llmtest.Turn{Text: "too late", Delay: time.Minute}

// Scenarios are the run contract, the same table for every wire.
func Scenarios() []Scenario {
	return []Scenario{{
		Name:   "answered",
		Prompt: "write b",
		Turns:  []llmtest.Turn{writeB, {Text: "Wrote b.txt."}},
		Want:   Want{Ending: agentrun.Answered, Answer: "Wrote b.txt.", Offered: []string{"b.txt"}},
	}, {
		Name:   "iteration cap",
		Env:    map[string]string{"AGENT_LSP_MAX_ITERATIONS": "1"},
		Prompt: "write b",
		Turns:  []llmtest.Turn{writeB},
		Want:   Want{Ending: agentrun.Stopped, Answer: "stopped at the iteration cap (1 model calls)", Offered: []string{"b.txt"}},
	}, {
		Name:   "going in circles",
		Prompt: "read a",
		Turns:  []llmtest.Turn{readA, readA, readA},
		Want:   Want{Ending: agentrun.Stopped, Answer: "Read a.txt gave the same result 3 times"},
	}, {
		Name:     "cancel",
		Prompt:   "write b",
		Turns:    []llmtest.Turn{writeB, held},
		CancelAt: 2,
		Want:     Want{Ending: agentrun.Cancelled},
	}, {
		Name:   "provider failure",
		Prompt: "write b",
		Turns:  []llmtest.Turn{writeB, {Status: 400, Body: `{"error":{"message":"the model is gone"}}`}},
		Want:   Want{Ending: agentrun.Failed, Answer: "the model is gone"},
	}, {
		Name:   "ask mode",
		Mode:   string(agentrun.ModeAsk),
		Prompt: "what is in a.txt?",
		Turns:  []llmtest.Turn{{Text: "It says a."}},
		Want:   Want{Ending: agentrun.Answered, Answer: "It says a.", ToolsLack: []string{"write_file", "edit_file", "execute_command"}},
	}, {
		Name:   "plan mode",
		Mode:   string(agentrun.ModePlan),
		Config: "plan_confirm = false\n",
		Prompt: "write b",
		Turns: []llmtest.Turn{
			{Text: `{"steps":[{"goal":"write b.txt","done":"b.txt exists"}]}`},
			writeB, {Text: "b.txt written."},
		},
		Want: Want{Ending: agentrun.Answered, Answer: "b.txt written.", Offered: []string{"b.txt"}},
	}, {
		Name:   "after a discarded proposal",
		Prompt: "write b",
		Turns:  []llmtest.Turn{writeB, {Text: "Wrote b.txt."}, {Text: "Understood."}},
		Second: "and now?",
		Want:   Want{Ending: agentrun.Answered, Answer: "Understood.", Told: agentrun.AsideNotAccepted},
		Differs: map[string]string{
			CLI: "ask is one run with no conversation to go on: there is no second prompt to tell",
		},
	}}
}

// Play runs every scenario through wire's driver as a subtest, skipping
// those whose difference on wire is declared, and checks each outcome.
func Play(t *testing.T, wire string, drive func(*testing.T, Scenario) Got) {
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			if why, ok := sc.Differs[wire]; ok {
				t.Skip("declared: " + why)
			}
			Check(t, wire, sc, drive(t, sc))
		})
	}
}

// WriteUserConfig writes text as the user's own config.toml under
// configHome (XDG_CONFIG_HOME); nothing when text is empty.
func WriteUserConfig(t *testing.T, configHome, text string) {
	t.Helper()
	if text == "" {
		return
	}
	dir := filepath.Join(configHome, "agent-lsp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Check fails t where got is not the scenario's outcome on wire.
func Check(t *testing.T, wire string, sc Scenario, got Got) {
	t.Helper()
	w := sc.Want
	if got.Ending != w.Ending {
		t.Errorf("%s: ending %q, want %q", wire, got.Ending, w.Ending)
	}
	if !strings.Contains(got.Answer, w.Answer) {
		t.Errorf("%s: the user was shown %q, want it to hold %q", wire, got.Answer, w.Answer)
	}
	offered := slices.Sorted(slices.Values(got.Offered))
	if !slices.Equal(offered, w.Offered) {
		t.Errorf("%s: offered %v, want %v", wire, offered, w.Offered)
	}
	for _, name := range w.ToolsLack {
		if slices.Contains(got.Tools, name) {
			t.Errorf("%s: the model was offered %s (%v)", wire, name, got.Tools)
		}
	}
	if len(w.ToolsLack) > 0 && !slices.Contains(got.Tools, "read_file") {
		t.Errorf("%s: the model cannot read: %v", wire, got.Tools)
	}
	if !strings.Contains(got.Second, w.Told) {
		t.Errorf("%s: the second task %q does not tell %q", wire, got.Second, w.Told)
	}
}

// OfferedTools are the tool names of an OpenAI chat request's body.
func OfferedTools(body map[string]any) []string {
	var names []string
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		if fn, ok := t.(map[string]any)["function"].(map[string]any); ok {
			if name, ok := fn["name"].(string); ok {
				names = append(names, name)
			}
		}
	}
	return names
}

// WaitRequests blocks until srv got n requests or the deadline passes.
func WaitRequests(t *testing.T, srv *llmtest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the model got %d request(s), want %d", len(srv.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
