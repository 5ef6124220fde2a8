package sandbox

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Placeholder names a host path in World's text: every occurrence of Path
// is written as Name ($VIEW for a run's view dir, say), so that the text
// says what a path is rather than where this run happened to make it.
type Placeholder struct{ Name, Path string }

// String is the text Format writes, without placeholders.
func (w World) String() string {
	var b strings.Builder
	w.Format(&b)
	return b.String()
}

// Format writes w as a reviewer audits a bubblewrap argument list: one
// item a line, each line starting with what it is (level, argv, dir,
// namespaces, network, credentials, view, mount, env, limit, cgroup,
// rlimit, disk, landlock, filter, seatbelt), mounts in the order they are
// made, the environment sorted. The text is stable: the same World
// always writes the same text.
func (w World) Format(out io.Writer, placeholders ...Placeholder) error {
	var pairs []string
	for _, p := range slices.SortedFunc(slices.Values(placeholders), func(a, b Placeholder) int {
		return cmp.Compare(len(b.Path), len(a.Path)) // the longest first: it wins
	}) {
		if p.Path != "" {
			pairs = append(pairs, p.Path, p.Name)
		}
	}
	bw := bufio.NewWriter(out)
	line := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		if len(pairs) > 0 {
			s = strings.NewReplacer(pairs...).Replace(s)
		}
		bw.WriteString(s + "\n")
	}
	w.format(line)
	return bw.Flush()
}

func (w World) format(line func(string, ...any)) {
	line("level %s", w.Level)
	if w.Server {
		line("kind language server: its stdin and stdout piped to agent-lsp, no timeout")
	}
	var argv []string
	for _, a := range w.Argv {
		if w.Seatbelt != "" && a == w.Seatbelt {
			a = "<seatbelt profile>"
		} else {
			a = shellWord(a)
		}
		argv = append(argv, a)
	}
	line("argv %s", strings.Join(argv, " "))
	line("dir %s", w.Dir)
	if len(w.Namespaces) > 0 {
		line("namespaces %s", strings.Join(w.Namespaces, " "))
	}
	switch {
	case w.Network.Allowed:
		line("network on: the user opted in (sandbox_network)")
	case w.Network.Cut != "":
		line("network off: %s", w.Network.Cut)
	default:
		line("network on: nothing at level %s cuts it (sandbox_network is off)", w.Level)
	}
	w.formatCredentials(line)
	w.formatView(line)
	for _, m := range w.Mounts {
		line("mount %s", m.text())
	}
	for _, kv := range slices.Sorted(slices.Values(w.Env)) {
		line("env %s", printable(kv))
	}
	w.formatLimits(line)
	w.formatLandlock(line)
	if f := w.Filter; f != nil {
		unix := "allowed"
		if f.NoUnixSockets {
			unix = "denied"
		}
		inet := ""
		if f.NoInetSockets {
			inet = "; IPv4 and IPv6 sockets denied"
		}
		line("filter seccomp: %s; AF_UNIX sockets %s%s", filterDenies, unix, inet)
	}
	if w.Seatbelt != "" {
		line("seatbelt profile:")
		for _, l := range strings.Split(strings.TrimSuffix(w.Seatbelt, "\n"), "\n") {
			if l == "" {
				line("")
				continue
			}
			line("  %s", l)
		}
	}
}

// filterDenies says what the seccomp filter (syscallfilter_linux.go)
// refuses whatever the level, in the words of its deniedCalls.
const filterDenies = "EPERM for the session keyring, other processes' memory (ptrace, process_vm_*), the mount table, " +
	"new and other namespaces (unshare, setns, clone's namespace flags), kernel modules, kexec, reboot, bpf, perf_event_open, " +
	"userfaultfd, io_uring, file handles, swap, acct, quotas, syslog, the I/O ports where the architecture has them, " +
	"AF_PACKET and AF_KEY sockets, TIOCSTI and TIOCLINUX, personality changes and other ABIs' calls; ENOSYS for clone3"

func (w World) formatCredentials(line func(string, ...any)) {
	switch w.Level {
	case Full, Landlock:
		groups := "kept (only root may drop them)"
		if w.DropGroups {
			groups = "dropped"
		}
		line("credentials no capabilities, no_new_privs, a new session keyring, a session of its own (no controlling terminal), supplementary groups %s", groups)
	default:
		line("credentials the user's own")
	}
}

func (w World) formatView(line func(string, ...any)) {
	v := w.View
	readOnly := " read-only"
	if w.Level == None {
		readOnly = ", read-only by agreement only: nothing at level none enforces it"
	}
	switch {
	case v.Copy != "" && w.Server:
		line("view %s copy=%s%s", v.Root, v.Copy, readOnly)
	case v.Copy != "":
		line("view %s copy=%s", v.Root, v.Copy)
	case v.Lower == "" && w.Server:
		line("view %s itself%s", v.Root, readOnly)
	case v.Lower != "":
		s := fmt.Sprintf("view %s overlay lower=%s", v.Root, v.Lower)
		if v.Staged != "" {
			s += " staged=" + v.Staged
		}
		switch {
		case v.Layer != nil:
			s += " upper=<layer>/upper work=<layer>/work"
		case v.Upper != "":
			s += " upper=" + v.Upper + " work=" + v.Work
		default:
			s += " read-only (no upper layer)"
		}
		line("%s", s)
	}
}

func (w World) formatLimits(line func(string, ...any)) {
	l := w.Limits
	if l.Timeout > 0 {
		line("limit timeout %s", l.Timeout)
	}
	if l.Processes > 0 {
		line("limit processes %d", l.Processes)
	}
	if l.Memory > 0 {
		line("limit memory %s", size(l.Memory))
	}
	if l.FileSize > 0 {
		line("limit file-size %s", size(l.FileSize))
	}
	if l.CPU > 0 {
		line("limit cpu %s", l.CPU)
	}
	if l.Disk > 0 {
		line("limit disk %s", size(l.Disk))
	}
	if l.Files > 0 {
		line("limit files %d", l.Files)
	}
	if w.Cgroup && (l.Processes > 0 || l.Memory > 0) {
		line("cgroup processes %d, memory %s (no swap where cgroup v2); the helper is put in it before it may fork", l.Processes, size(l.Memory))
	}
	if g := w.Group; g != nil {
		line("cgroup in its group's, which bounds the group's language servers together: processes %d, memory %s", g.Processes, size(g.Memory))
	}
	for _, r := range w.Rlimits {
		line("rlimit %s %d", r.Name, r.Value)
	}
	switch d := w.Disk; {
	case d != nil:
		line("disk measured while it runs, killed past %s: counted %s; grown %s; tmpfs %s", size(d.Limit), list(d.Counted), list(d.Grown), list(d.Tmpfs))
	case l.Disk > 0:
		line("disk bounded by its tmpfs mounts (ENOSPC past %s or %d files)", size(l.Disk), l.Files)
	}
}

func (w World) formatLandlock(line func(string, ...any)) {
	r := w.Landlock
	if r == nil {
		return
	}
	s := fmt.Sprintf("landlock ABI %d: what is not below is denied", r.ABI)
	if r.NoTCP {
		if r.ABI >= 4 {
			s += "; TCP bind and connect denied"
		} else {
			s += "; TCP not cut (no network rules before ABI 4)"
		}
	}
	if r.Scoped && r.ABI >= 6 {
		s += "; abstract unix sockets and signals scoped to the sandbox"
	}
	line("%s", s)
	for _, p := range r.RO {
		line("landlock ro %s", p)
	}
	for _, p := range r.RW {
		line("landlock rw %s", p)
	}
}

// text is one mount: its kind and target, where it comes from, then its
// flags.
func (m Mount) text() string {
	s := string(m.Kind) + " " + m.Target
	switch m.Kind {
	case MountSymlink:
		s += " -> " + m.Source
	case MountLayer:
		s += " <- <layer>/" + m.Source
	case MountBind:
		if m.Source != m.Target {
			s += " <- " + m.Source
		}
	}
	switch m.Kind {
	case MountBind, MountView, MountPrivate, MountLayer:
		if m.RW {
			s += " rw"
		} else {
			s += " ro"
		}
	}
	if m.File {
		s += " file"
	}
	if m.Kind == MountTmpfs || m.Kind == MountPrivate {
		s += fmt.Sprintf(" size=%s inodes=%d mode=%o", size(m.Size), m.Inodes, m.Mode)
	}
	return s
}

// size writes n bytes in the largest binary unit that holds it exactly.
func size(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

func list(paths []string) string {
	if len(paths) == 0 {
		return "-"
	}
	return strings.Join(paths, " ")
}

// shellWord quotes s as a POSIX shell word where it needs quoting, so that
// the argv line reads as the command it is; a word with control
// characters is written Go-quoted, to stay on its line.
func shellWord(s string) string {
	switch {
	case s == "":
		return "''"
	case strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0:
		return strconv.Quote(s)
	case strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@%+,", r))
	}) < 0:
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printable keeps one environment entry on its line.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
