package tools

import (
	"context"
	"fmt"
	"testing"
)

// A directory with more entries than a tool's walk looks at is noted.
func TestWalkNotesADirectoryOverItsEntryLimit(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{"big/keep": "x"}
	for i := range 30 {
		tree[fmt.Sprintf("big/f%02d", i)] = "x"
	}
	writeTree(t, root, tree)
	w, _ := NewWorkspace(root, nil)
	rep := walkReport{dirLimit: 10}
	seen := 0
	if err := w.walk(context.Background(), ".", 0, &rep, func(e walkEntry) error { seen++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := "(1 directory has more than 10 entries: big/; only 10 of each were looked at)\n"; seen != 11 || rep.notes() != want {
		t.Errorf("%d entries seen, notes %q; want 11 (big/ and ten of its files) and %q", seen, rep.notes(), want)
	}
	seen = 0
	if err := w.walk(context.Background(), ".", 0, nil, func(e walkEntry) error { seen++; return nil }); err != nil || seen != 32 {
		t.Errorf("a walk without a report (the sandbox's copy) saw %d entries (%v), want all 32", seen, err)
	}
}
