package config

import (
	"testing"
	"time"
)

// Unset, a number is its row's Default; set, its own value; and every
// accessor names a row that has a number default (number panics otherwise).
func TestNumbersDefaultFromTheTable(t *testing.T) {
	var unset Settings
	if unset.CommandTimeout() != 30*time.Second || unset.Iterations() != 10 || unset.OutputLimit() != 200_000 ||
		unset.Trials() != 3 || unset.Replans() != 2 || unset.Retries() != 5 || unset.RetryBase() != time.Second {
		t.Fatalf("defaults: %v %d %d %d %d %d %v", unset.CommandTimeout(), unset.Iterations(), unset.OutputLimit(),
			unset.Trials(), unset.Replans(), unset.Retries(), unset.RetryBase())
	}
	set := Settings{CommandTimeoutS: 90, MaxIterations: 4}
	if set.CommandTimeout() != 90*time.Second || set.Iterations() != 4 {
		t.Fatalf("set: %v %d", set.CommandTimeout(), set.Iterations())
	}
}
