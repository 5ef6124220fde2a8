package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// The directories this package and the workspace views make in the temp
// dir carry their owner's pid and start time in their names
// (agent-lsp-KIND-PID.START-RANDOM), so that a process killed with SIGKILL
// leaves nothing for good: the next start removes every such directory whose
// owner is gone. A pid reused by another process keeps a directory one more
// time, never removes a live one.

var ownerName = regexp.MustCompile(`^agent-lsp-[a-z]+-(\d+)\.(\d+)-\d+$`)

var ownTag = sync.OnceValue(func() string {
	start, _ := processStart(os.Getpid())
	return fmt.Sprintf("%d.%d", os.Getpid(), start)
})

// MkdirTemp makes a new directory (mode 0700) in the temp dir, named for
// kind ("view", "scratch", …) and this process, for SweepStale to find.
func MkdirTemp(kind string) (string, error) {
	return os.MkdirTemp("", "agent-lsp-"+kind+"-"+ownTag()+"-")
}

var sweepOnce sync.Once

// SweepStale runs Sweep once per process, in the background.
func SweepStale() {
	sweepOnce.Do(func() { go Sweep() })
}

// Sweep removes what killed agent-lsp processes left — their directories in
// the temp dir, and their cgroups — and returns the directories removed.
func Sweep() []string {
	removed := sweepTemp(os.TempDir())
	removeStaleCgroups()
	return removed
}

// sweepTemp removes the directories in dir whose owner is no longer running.
func sweepTemp(dir string) (removed []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		m := ownerName.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		var pid int
		var start uint64
		fmt.Sscan(m[1], &pid)
		fmt.Sscan(m[2], &start)
		if running(pid, start) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := RemoveTree(p); err == nil || errors.Is(err, os.ErrNotExist) {
			removed = append(removed, p)
		}
	}
	return removed
}

// running reports whether the process pid that started at start (see
// processStart) still runs.
func running(pid int, start uint64) bool {
	got, ok := processStart(pid)
	return ok && (start == 0 || got == start)
}

// newScratch makes a command's own empty home and tmp in a new directory
// (dir, by its real path: Seatbelt matches paths after links, and macOS's
// temp dir is under a link) of the temp dir, below full, where no tmpfs
// holds them. The caller removes dir (RemoveTree).
func newScratch() (dir, home, tmp string, err error) {
	made, err := MkdirTemp("scratch")
	if err != nil {
		return "", "", "", err
	}
	if dir, err = filepath.EvalSymlinks(made); err != nil {
		RemoveTree(made)
		return "", "", "", err
	}
	home, tmp = filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			RemoveTree(dir)
			return "", "", "", err
		}
	}
	return dir, home, tmp, nil
}
