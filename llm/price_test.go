package llm

import (
	"math"
	"testing"
)

func TestCost(t *testing.T) {
	// A million input tokens of which half cached, and 100k output.
	cost := Price{2, 0.5, 8}.Cost(Usage{InputTokens: 1_000_000, CachedTokens: 500_000, OutputTokens: 100_000})
	if want := 1 + 0.25 + 0.8; math.Abs(cost-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", cost, want)
	}
}
