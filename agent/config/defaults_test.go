package config

import (
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Unset, a number is its row's Default, which is the consumer's own
// default (declared once, there); set, its own value; and every accessor
// names a row that has a number default (number panics otherwise).
func TestNumbersDefaultFromTheTable(t *testing.T) {
	var unset Settings
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"command_timeout_s", unset.CommandTimeout(), tools.DefaultCommandTimeout},
		{"max_output", unset.OutputLimit(), tools.DefaultMaxOutput},
		{"max_iterations", unset.Iterations(), agent.DefaultMaxIterations},
		{"max_trials", unset.Trials(), agent.DefaultMaxTrials},
		{"max_replans", unset.Replans(), agent.DefaultMaxReplans},
		{"retry_attempts", unset.Retries(), resilience.DefaultMaxAttempts},
		{"retry_base_ms", unset.RetryBase(), resilience.DefaultBase},
		{"completion.debounce_ms", unset.Completion.Debounce(), DefaultCompletionDebounce},
		{"completion.max_lines", unset.Completion.Lines(), DefaultCompletionMaxLines},
		{"nes.debounce_ms", unset.NES.Debounce(), DefaultNESDebounce},
	} {
		if c.got != c.want {
			t.Errorf("%s unset: %v, its consumer's default %v", c.name, c.got, c.want)
		}
	}
	set := Settings{CommandTimeoutS: 90, MaxIterations: 4, Completion: Completion{DebounceMS: 20, MaxLines: 3}, NES: NES{DebounceMS: 40}}
	if set.CommandTimeout() != 90*time.Second || set.Iterations() != 4 || set.Completion.Debounce() != 20*time.Millisecond ||
		set.Completion.Lines() != 3 || set.NES.Debounce() != 40*time.Millisecond {
		t.Fatalf("set: %v %d %v %d %v", set.CommandTimeout(), set.Iterations(), set.Completion.Debounce(), set.Completion.Lines(), set.NES.Debounce())
	}
}
