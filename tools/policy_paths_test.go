package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// pathPolicyRoot lays out base/root (the workspace) beside base/sibling and
// base/out, with a symlink in the root to out and one to a folder inside.
func pathPolicyRoot(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	toolstest.WriteFiles(t, base, map[string]string{
		"root/main.go":     "package main\n",
		"root/a.txt":       "a\n",
		"root/sub/x.txt":   "x\n",
		"sibling/.env":     "SECRET=1\n",
		"out/secret":       "s\n",
		"out/dir/file.txt": "f\n",
	})
	root := filepath.Join(base, "root")
	for name, target := range map[string]string{"link": "../out/dir", "inner": "sub"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestPolicyKeepsReadsInWorkspace(t *testing.T) {
	root := pathPolicyRoot(t)
	p := NewPolicy(DefaultAllowlist)
	p.SetRoot(root)
	allowed := []string{
		`grep -rn "foo/bar" .`,
		"cat main.go",
		"ls -la",
		"go test ./...",
		"git diff HEAD~1 -- main.go",
		"head -n 5 a.txt",
		"find . -name '*.go'",
		"cat inner/x.txt",
		"cat sub/../a.txt",
		"cat new/file.txt",
		"cat " + filepath.Join(root, "main.go"),
		"ls " + root,
		"cat /dev/null - /dev/stdin",
		"git log --format=%H/%s",
		"wc -l < a.txt",
		"echo ~/.secret",
	}
	needsApproval := map[string]string{
		"cat ~/.secret":                     `cat ~/.secret reads ~/.secret, outside the workspace`,
		"grep -r x ~":                       `grep -r x ~ reads ~, outside the workspace`,
		"head ../sibling/.env":              `reads ../sibling/.env, outside the workspace`,
		"git diff --no-index /etc/passwd a": `reads /etc/passwd, outside the workspace`,
		"cat /proc/self/environ":            `reads /proc/self/environ`,
		"find / -name x":                    `find / -name x reads /, outside the workspace`,
		"git -C /tmp status":                `git -C /tmp status is not on the allowlist`,
		"ls link":                           `ls link reads link, outside the workspace`,
		"cat link/file.txt":                 `reads link/file.txt`,
		"cat link/../secret":                `reads link/../secret`,
		"cat /etc/pass*":                    `reads /etc/pass*`,
		"cat ~root/.profile":                `reads ~root/.profile`,
		"rg --ignore-file=/etc/x foo":       `reads --ignore-file=/etc/x`,
		"cat < ~/.secret":                   `reads ~/.secret through a redirection, outside the workspace`,
		"wc -l < $F":                        `reads $F through a redirection, computed at run time`,
		`bash -c 'cat ../sibling/.env'`:     `reads ../sibling/.env`,
	}
	checkPolicy(t, p, allowed, needsApproval)

	withGit := NewPolicy([]string{"git"})
	withGit.SetRoot(root)
	checkPolicy(t, withGit, nil, map[string]string{
		"git -C /tmp status": `git -C /tmp status reads /tmp, outside the workspace`,
	})

	p.SetRoot("")
	checkPolicy(t, p, []string{"cat ~/.secret", "ls link", "cat < /etc/passwd"}, nil)
}
