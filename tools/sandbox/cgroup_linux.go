package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroupRoot is where cgroup file systems are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroup is one command's process and memory cap: a pids (and memory)
// cgroup holds even for root, where RLIMIT_NPROC does not.
type cgroup struct {
	dirs []string // the cgroups made for this command (v2: one; v1: pids, memory)
	// in are dirs by controller ("unified", "pids", "memory"): where
	// cgroups inside this one are made (a Group's).
	in map[string]string
}

var cgroupSeq atomic.Int64

// cgroupParents lists, per controller, the directory under which this
// process may make cgroups: v2 when the unified hierarchy delegates pids to
// us, else v1's pids and memory hierarchies.
func cgroupParents() (version string, parents map[string]string) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", nil
	}
	defer f.Close()
	v1 := map[string]string{}
	v2 := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" || c == "memory" {
				v1[c] = filepath.Join(cgroupRoot, c, parts[2])
			}
		}
	}
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil && v2 != "" {
		return "v2", map[string]string{"unified": filepath.Join(cgroupRoot, v2)}
	}
	if v1["pids"] != "" {
		return "v1", v1
	}
	return "", nil
}

// newCgroup makes the cgroups for one command. It fails when this process
// may not make them (then rlimits are the fallback).
func newCgroup(l Limits) (*cgroup, error) {
	version, parents := cgroupParents()
	if version == "" {
		return nil, errors.New("no pids cgroup controller")
	}
	return newCgroupIn(parents, l, false)
}

// newCgroupIn makes the cgroups of limits l under parents (a dir per
// controller); with group, ones that hold others (a Group's): their
// controllers are handed down to those.
func newCgroupIn(parents map[string]string, l Limits, group bool) (*cgroup, error) {
	name := fmt.Sprintf("agent-lsp-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	cg := &cgroup{in: map[string]string{}}
	settings := map[string][][2]string{
		"unified": {{"pids.max", strconv.Itoa(l.Processes)}, {"memory.max", strconv.FormatInt(l.Memory, 10)}, {"memory.swap.max", "0"}},
		"pids":    {{"pids.max", strconv.Itoa(l.Processes)}},
		"memory":  {{"memory.limit_in_bytes", strconv.FormatInt(l.Memory, 10)}},
	}
	for controller, parent := range parents {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			cg.remove()
			return nil, err
		}
		cg.dirs = append(cg.dirs, dir)
		cg.in[controller] = dir
		if group && controller == "unified" {
			// cgroup v2: a cgroup's controllers are its children's only
			// when it hands them down (and it then holds no process).
			if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+pids +memory"), 0); err != nil {
				cg.remove()
				return nil, fmt.Errorf("cgroup.subtree_control: %w", err)
			}
		}
		for i, kv := range settings[controller] {
			err := os.WriteFile(filepath.Join(dir, kv[0]), []byte(kv[1]), 0)
			if err != nil && i == 0 {
				cg.remove() // the first setting is the one that must hold
				return nil, fmt.Errorf("%s: %w", kv[0], err)
			}
		}
	}
	return cg, nil
}

// setLimits changes the bounds of a cgroup made with other limits (a spare
// helper's, made ahead with the defaults).
func (cg *cgroup) setLimits(l Limits) error {
	for _, dir := range cg.dirs {
		for _, kv := range [][2]string{{"pids.max", strconv.Itoa(l.Processes)}, {"memory.max", strconv.FormatInt(l.Memory, 10)}, {"memory.limit_in_bytes", strconv.FormatInt(l.Memory, 10)}} {
			p := filepath.Join(dir, kv[0])
			if _, err := os.Stat(p); err != nil {
				continue
			}
			if err := os.WriteFile(p, []byte(kv[1]), 0); err != nil {
				return fmt.Errorf("%s: %w", kv[0], err)
			}
		}
	}
	return nil
}

// add puts pid (which has not forked yet) into every cgroup.
func (cg *cgroup) add(pid int) error {
	for _, dir := range cg.dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

// kill kills every process left in the cgroups, including ones that left
// the process group (setsid).
func (cg *cgroup) kill() {
	for _, dir := range cg.dirs {
		if os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) == nil {
			continue
		}
		for range 10 { // v1: a forking process may add members while we kill
			data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			if err != nil || len(strings.TrimSpace(string(data))) == 0 {
				break
			}
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
}

// remove deletes the cgroups once their processes are gone.
func (cg *cgroup) remove() {
	for _, dir := range cg.dirs {
		for i := 0; i < 50; i++ {
			if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(2 * time.Millisecond) // killed processes take a moment to leave
		}
	}
}

// removeStaleCgroups removes the empty cgroups of agent-lsp processes that
// died without removing them (killed mid-command), and those in them (a
// Group's).
func removeStaleCgroups() {
	_, parents := cgroupParents()
	for _, parent := range parents {
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			var pid, seq int
			if _, err := fmt.Sscanf(e.Name(), "agent-lsp-%d-%d", &pid, &seq); err != nil || !e.IsDir() {
				continue
			}
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				removeCgroupTree(filepath.Join(parent, e.Name()))
			}
		}
	}
}

// removeCgroupTree removes the cgroup dir and those below it, the deepest
// first; one that still holds a process stays (rmdir fails, harmlessly).
func removeCgroupTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}
