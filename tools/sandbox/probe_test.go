package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGoDirsRunNoGo finds the toolchain and the module cache from the
// environment and from the go on PATH, without running any go: the go on
// PATH here is a script that leaves a mark if it runs.
func TestGoDirsRunNoGo(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(root, "bin"), filepath.Join(root, "src", "runtime"), filepath.Join(home, "go", "pkg", "mod")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(root, "bin", "go"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(root, "bin"))
	env := map[string]string{}
	gotRoot, gotCache := goDirs(func(k string) string { return env[k] }, home)
	if gotRoot != root || gotCache != filepath.Join(home, "go", "pkg", "mod") {
		t.Errorf("from PATH and the defaults: %q %q", gotRoot, gotCache)
	}
	env["GOROOT"], env["GOMODCACHE"] = home, root
	if gotRoot, gotCache := goDirs(func(k string) string { return env[k] }, home); gotRoot != home || gotCache != root {
		t.Errorf("from the environment: %q %q", gotRoot, gotCache)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a go command ran")
	}
}

// TestNoneProbesNothing: at AGENT_LSP_SANDBOX=none nothing is probed (the
// probe starts helpers); landlock asks the probe for no more than
// Landlock, and lowers a level found above it.
func TestNoneProbesNothing(t *testing.T) {
	var asked []Level
	found := Caps{Level: Full, Mounts: "overlay", Bounded: true, Cgroup: "v2"}
	probe := func(upTo Level) Caps { asked = append(asked, upTo); return found }
	if c := probeUpTo(None, probe); c.Level != None || len(asked) != 0 {
		t.Fatalf("none: %+v, probe asked %v", c, asked)
	}
	c := probeUpTo(Landlock, probe)
	if c.Level != Landlock || c.Mounts != "" || c.Bounded || c.Cgroup != "v2" || c.Why != "lowered by AGENT_LSP_SANDBOX=landlock" || len(asked) != 1 || asked[0] != Landlock {
		t.Fatalf("landlock: %+v, probe asked %v", c, asked)
	}
	if c := probeUpTo("", probe); c.Level != Full || asked[1] != "" {
		t.Fatalf("default: %+v, probe asked %v", c, asked)
	}
}
