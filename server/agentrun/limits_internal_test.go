package agentrun

import (
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/config"
)

// Leaving command_timeout_s out and setting it to its documented default
// bound a command the same: the model cannot ask for more than 30 s either
// way (unset, it could ask for ten minutes).
func TestUnsetLimitsAreTheDocumentedDefaults(t *testing.T) {
	unset := commandLimits(config.Settings{})
	set := commandLimits(config.Settings{CommandTimeoutS: 30, MaxOutput: 200_000})
	if unset != set || unset.MaxTimeout != 30*time.Second {
		t.Fatalf("unset %+v, set to the defaults %+v", unset, set)
	}
}
