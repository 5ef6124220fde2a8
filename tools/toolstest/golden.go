package toolstest

import (
	"os"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// Golden compares got with the golden file path, or with update rewrites
// the file from got; how names the command that does (its -update run).
// A difference is shown as a unified diff.
func Golden(t testing.TB, path, got string, update bool, how string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, how)
	}
	if got != string(want) {
		t.Errorf("%s differs; if the change is meant, rewrite it with %s:\n%s", path, how, udiff.Unified(path, "got", string(want), got))
	}
}
