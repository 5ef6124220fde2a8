package config

import (
	"fmt"
	"time"
)

// The numbers a run uses, each the setting's value or, when it is unset,
// its row's Default: the one place a default is read, so leaving a
// setting out and setting it to its documented default mean the same.

// Iterations is max_iterations.
func (s Settings) Iterations() int { return s.number("max_iterations") }

// CommandTimeout is command_timeout_s: a command's timeout, and the most
// a model may ask for.
func (s Settings) CommandTimeout() time.Duration {
	return time.Duration(s.number("command_timeout_s")) * time.Second
}

// OutputLimit is max_output: the bytes of a command's output kept.
func (s Settings) OutputLimit() int { return s.number("max_output") }

// Trials is max_trials (reflexion); Replans is max_replans (plan-and-execute).
func (s Settings) Trials() int  { return s.number("max_trials") }
func (s Settings) Replans() int { return s.number("max_replans") }

// TestBudget is test_budget_s: how long the tests a proposal touches may
// run.
func (s Settings) TestBudget() time.Duration {
	return time.Duration(s.number("test_budget_s")) * time.Second
}

// Retries is retry_attempts; RetryBase is retry_base_ms.
func (s Settings) Retries() int { return s.number("retry_attempts") }
func (s Settings) RetryBase() time.Duration {
	return time.Duration(s.number("retry_base_ms")) * time.Millisecond
}

// number is the int setting named, or its row's Default when unset.
func (s Settings) number(name string) int {
	for _, r := range table {
		if r.TOML != name {
			continue
		}
		if v := r.value(&s); isSet(v) {
			return int(v.Int())
		}
		d, ok := r.Default.(int)
		if !ok {
			panic(fmt.Sprintf("config: %s has no number as its default", name))
		}
		return d
	}
	panic("config: no setting " + name)
}
