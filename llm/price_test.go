package llm

import (
	"math"
	"testing"
)

func TestPriceOf(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4.1-mini", Price{0.40, 0.10, 1.60}, true},
		{"gpt-4.1-mini-2025-04-14", Price{0.40, 0.10, 1.60}, true},
		{"gpt-4.1-2025-04-14", Price{2, 0.50, 8}, true},
		{"gemini-2.5-flash-lite", Price{0.10, 0.10, 0.40}, true},
		{"qwen2.5-coder", Price{}, false},
		{"gpt-4.1x", Price{}, false},
	} {
		got, ok := PriceOf(tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PriceOf(%q) = %v %v, want %v %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
	// A million input tokens of which half cached, and 100k output.
	cost := Price{2, 0.5, 8}.Cost(Usage{InputTokens: 1_000_000, CachedTokens: 500_000, OutputTokens: 100_000})
	if want := 1 + 0.25 + 0.8; math.Abs(cost-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", cost, want)
	}
}
