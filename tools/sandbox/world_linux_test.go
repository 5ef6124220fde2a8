package sandbox

import (
	"slices"
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
