package tools

import "testing"

func BenchmarkBuildRegistry(b *testing.B) {
	ws, err := NewWorkspace(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := NewRegistry(NewDefaultRegistry(ws, NewPolicy(nil), nil, CommandLimits{}).Tools()...); err != nil {
			b.Fatal(err)
		}
	}
}
