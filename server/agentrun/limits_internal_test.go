package agentrun

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
)

// Leaving command_timeout_s out and setting it to its documented default
// bound a command the same: the model cannot ask for more than that either
// way (unset, it could once ask for ten minutes).
func TestUnsetLimitsAreTheDocumentedDefaults(t *testing.T) {
	documented := config.Settings{}
	for _, r := range config.Table() {
		switch r.TOML {
		case "command_timeout_s":
			documented.CommandTimeoutS = r.Default.(int)
		case "max_output":
			documented.MaxOutput = r.Default.(int)
		}
	}
	if documented.CommandTimeoutS == 0 || documented.MaxOutput == 0 {
		t.Fatalf("the table documents no default: %+v", documented)
	}
	if unset, set := commandLimits(config.Settings{}), commandLimits(documented); unset != set {
		t.Fatalf("unset %+v, set to the documented defaults %+v", unset, set)
	}
}
