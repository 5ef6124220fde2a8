package sandbox

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The namespaces a World names are the ones its helper is started in.
func TestCloneFlagsOfTheWorldsNamespaces(t *testing.T) {
	if got, err := cloneFlags(namespaceNames); err != nil || got != nsFlags {
		t.Errorf("cloneFlags(%v) = %#x, %v; want nsFlags %#x", namespaceNames, got, err, uintptr(nsFlags))
	}
	noNet := slices.DeleteFunc(slices.Clone(namespaceNames), func(n string) bool { return n == "net" })
	if got, _ := cloneFlags(noNet); got != nsFlags&^uintptr(syscall.CLONE_NEWNET) {
		t.Errorf("without net: %#x", got)
	}
	if _, err := cloneFlags([]string{"time"}); err == nil {
		t.Error("a namespace the helper does not know was accepted")
	}
}

// Every rlimit a World may name is one the helper sets.
func TestEveryRlimitIsKnownToTheHelper(t *testing.T) {
	for _, name := range []string{"FSIZE", "CORE", "CPU", "NPROC", "DATA"} {
		if _, ok := rlimitResource[name]; !ok {
			t.Errorf("the helper does not know rlimit %s", name)
		}
	}
}

// What the World says is what the command gets: the command's shell finds
// the World's argv, directory and environment, nothing more (its
// /proc/$$/environ is the environment it was started with).
func TestTheCommandGetsItsWorld(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	var out, errs strings.Builder
	spec := w.spec(`tr '\0' ' ' < /proc/$$/cmdline; echo; pwd; tr '\0' '\n' < /proc/$$/environ`, &out, &errs)
	want, err := thisHost().world(Probe(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
		t.Fatalf("%+v %v %s", res, err, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("output %q", out.String())
	}
	argv := strings.Fields(lines[0])
	if len(argv) < 2 || argv[0] != want.Argv[0] || argv[1] != "-c" {
		t.Errorf("argv %q, want %q", lines[0], want.Argv)
	}
	if lines[1] != want.Dir {
		t.Errorf("dir %q, want %q", lines[1], want.Dir)
	}
	got := slices.Sorted(slices.Values(lines[2:]))
	if wantEnv := slices.Sorted(slices.Values(want.Env)); !slices.Equal(got, wantEnv) {
		t.Errorf("environment\n%s\nwant the World's\n%s", strings.Join(got, "\n"), strings.Join(wantEnv, "\n"))
	}
}

// The helper is started as its World says, not as the probe found: a World
// with no cgroup runs in none (rlimits bound it) even where cgroups can be
// made, and one that keeps the supplementary groups gets a user namespace
// that may not change them, even when this process may.
func TestTheHelperFollowsItsWorld(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	for _, c := range []struct {
		name              string
		cgroup, setgroups bool
	}{{"as probed", Probe().cgroups(), canDropGroups()}, {"no cgroup, groups kept", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			var out, errs strings.Builder
			spec := w.spec(`grep -c /agent-lsp- /proc/self/cgroup; cat /proc/self/setgroups`, &out, &errs)
			world, err := thisHost().world(Probe(), spec, "")
			if err != nil {
				t.Fatal(err)
			}
			world.Cgroup, world.DropGroups = c.cgroup, c.setgroups
			if res, err := runHelper(context.Background(), world, spec.Stdout, spec.Stderr); err != nil || res.ExitCode > 1 {
				t.Fatalf("%+v %v %s", res, err, errs.String())
			}
			inCgroup, setgroups, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
			if got := inCgroup != "0"; got != c.cgroup {
				t.Errorf("in a cgroup of ours: %v, want %v (%s)", got, c.cgroup, out.String())
			}
			if want := map[bool]string{true: "allow", false: "deny"}[c.setgroups]; setgroups != want {
				t.Errorf("setgroups %q, want %q", setgroups, want)
			}
		})
	}
}
