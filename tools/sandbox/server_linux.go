package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// startServerHelper starts server world w (levels full and landlock) in a
// helper of its own — not a spare: the server's pipes are the helper's
// stdin and stdout — bounded by its cgroup and measured where w says so.
// It returns once the helper has started the server (it closes its report
// then) or said why it could not; done removes the server's scratch dir,
// once it exited. Where w bounds it in its group (World.Group), its cgroup
// is made in group's.
func startServerHelper(ctx context.Context, w World, group *Group, stderr io.Writer, done func()) (*Process, error) {
	kind, err := kindOf(w)
	if err != nil {
		done()
		return nil, err
	}
	pipes, err := newServerPipes()
	if err != nil {
		done()
		return nil, err
	}
	var parents map[string]string
	if w.Group != nil {
		parents = group.parents()
	}
	h, err := spawnHelper(kind, pipes, parents)
	if err != nil {
		pipes.close()
		done()
		return nil, err
	}
	pipes.started()
	if stderr != nil {
		h.stderr.set(stderr)
	}
	end := func() {
		if kind.flags == 0 { // below full, no pid namespace dies with the helper
			h.kill()
		}
		if h.cg != nil {
			h.cg.kill()
		}
	}
	cleanup := func() {
		h.reportR.Close()
		h.layer.close()
		if h.cg != nil {
			h.cg.remove()
		}
		done()
	}
	report, err := h.startServer(ctx, w)
	if err != nil || report != "" {
		h.kill()
		end()
		<-h.done
		pipes.stdinW.Close()
		pipes.stdoutR.Close()
		cleanup()
		if report != "" {
			return nil, fmt.Errorf("sandbox: %s", report)
		}
		return nil, err
	}
	var quota *diskQuota
	if d := w.Disk; d != nil {
		quota = &diskQuota{limit: d.Limit, counted: d.Counted, grown: d.Grown, tmpfs: d.Tmpfs}
		quota.start()
	}
	alive, kill := context.WithCancel(context.Background())
	wait := func() (Result, error) {
		err := h.wait(alive, h.cg, quota)
		end()
		kill()
		return helperResult(Result{}, w, "", err)
	}
	return newProcess(w, h.cmd.Process.Pid, pipes.stdinW, pipes.stdoutR, kill, wait, cleanup), nil
}

// startServer bounds the helper by w's limits, sends it w and waits, at most
// until ctx is done, for its report: empty once the server started.
func (h *helperProc) startServer(ctx context.Context, w World) (string, error) {
	if w.Cgroup {
		err := errors.New("no cgroup was made for the helper")
		if h.cg != nil {
			err = h.cg.setLimits(w.Limits)
		}
		if err != nil {
			h.specW.Close()
			return "", fmt.Errorf("cgroup: %w", err)
		}
	}
	sendErr := h.send(ctx, helperSpec{World: w}, nil, &w.Limits)
	got := make(chan string, 1)
	go func() {
		report, _ := io.ReadAll(io.LimitReader(h.reportR, 64<<10))
		got <- strings.TrimSpace(string(report))
	}()
	select {
	case report := <-got:
		if report == "" && sendErr != nil {
			return "", fmt.Errorf("sending the spec: %w", sendErr)
		}
		return report, nil
	case <-ctx.Done():
		h.kill() // its report's end closes with it
		<-got
		return "", ctx.Err()
	}
}
