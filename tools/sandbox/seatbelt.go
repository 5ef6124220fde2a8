package sandbox

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Seatbelt is macOS's level: the command runs under sandbox-exec with a
// profile this file writes (deny by default; read the system and the
// toolchains; write only the view, its private tmp, home and cache; no
// network unless the user opted in; unix sockets only inside its own dirs),
// in an APFS clone of the workspace. It has not yet run on a Mac in this
// project's tests, so it is opt-in: AGENT_LSP_SANDBOX=seatbelt. It is weaker
// than full all the same (no pid namespace: a process that starts its own
// session outlives the command; no memory or process-count bound), so the
// policy asks before workspace code runs, as below full.
const Seatbelt Level = "seatbelt"

// sandboxExec is Apple's, at its fixed path: never one from PATH.
const sandboxExec = "/usr/bin/sandbox-exec"

// The profile is generated on every system and tested as text; only
// running it is macOS's (run_darwin.go). Paths in it must be real paths:
// Seatbelt matches the path a file was reached by after links are resolved
// (/private/etc, not /etc).

// macSystemDirs are what macOS adds to systemDirs: the parts of /System and
// /Library that programs, the dynamic loader and Apple's developer tools
// need, Xcode, and system databases read at start-up. Never /System as a
// whole: /System/Volumes/Data holds every user's files.
var macSystemDirs = []string{
	"/System/Library", "/System/Cryptexes", "/System/Volumes/Preboot/Cryptexes", "/System/iOSSupport",
	"/Library/Apple", "/Library/Developer", "/Library/Frameworks", "/Library/Java", "/Library/Preferences/Logging",
	"/Applications/Xcode.app", "/Applications/Xcode-beta.app",
	"/private/var/db/timezone", "/private/var/db/xcode_select_link", "/private/var/select", "/private/var/db/dyld",
}

// macLinks are the top-level links macOS has (/etc is /private/etc …): a
// program that resolves a path through one reads the link itself.
var macLinks = []string{"/etc", "/tmp", "/var"}

// macEtc is where etcAllowed's names live on macOS.
const macEtc = "/private/etc"

// macEtcAllowed are what macOS adds to etcAllowed: its certificate bundle
// (OpenSSL, curl, Python) and the PATH lists login shells read.
var macEtcAllowed = []string{"ssl/cert.pem", "paths", "paths.d"}

// seatbeltSysctls are the kernel values a command may read: the hardware
// and the system's version, its own process — never kern.procargs*, which
// holds other processes' arguments and environments.
var seatbeltSysctls = []string{
	"kern.argmax", "kern.hostname", "kern.maxfiles", "kern.maxfilesperproc", "kern.maxproc", "kern.ngroups",
	"kern.osproductversion", "kern.osrelease", "kern.ostype", "kern.osvariant_status", "kern.osversion",
	"kern.secure_kernel", "kern.usrstack64", "kern.version", "kern.tcsm_available", "kern.tcsm_enable",
	"machdep.ptrauth_enabled", "security.mac.lockdown_mode_state", "sysctl.proc_cputype", "sysctl.proc_translated",
	"vm.loadavg", "vm.pagesize",
}

var seatbeltSysctlPrefixes = []string{"hw.", "machdep.cpu.", "kern.proc.pid.", "kern.proc.pgrp."}

// seatbeltServices are the system services (mach ports) every command may
// ask: user and group lookups, notifications, logging.
var seatbeltServices = []string{
	"com.apple.system.opendirectoryd.libinfo", "com.apple.system.opendirectoryd.membership",
	"com.apple.system.notification_center", "com.apple.system.logger", "com.apple.logd",
}

// seatbeltNetServices are those a command with network access needs too:
// name resolution and TLS certificate checks.
var seatbeltNetServices = []string{
	"com.apple.SystemConfiguration.DNSConfiguration", "com.apple.SystemConfiguration.configd",
	"com.apple.trustd", "com.apple.trustd.agent", "com.apple.SecurityServer", "com.apple.networkd", "com.apple.ocspd",
}

// seatbeltPolicy is what one command may do under Seatbelt.
type seatbeltPolicy struct {
	// Read are directories (or files) it may read and run programs from:
	// the toolchains and the repository (read-only); the system's are
	// always added.
	Read []string
	// Write are directories it may read, write and run programs from: the
	// view, its tmp, home and cache. Unix sockets may live only there.
	Write []string
	// Network lets it reach the network (the user's opt-in).
	Network bool
}

// seatbeltGit is the git part of a command under Seatbelt: gitEnv, with
// GIT_DIR the repository's real path when gitDir (Run's gitRepository
// answer) is one, which the command may then read, else noRepository.
func seatbeltGit(gitDir, copy string) (env, read []string) {
	return seatbeltGitIn(osFS{}, gitDir, copy)
}

// seatbeltGitIn is seatbeltGit with the paths looked up in h.
func seatbeltGitIn(h hostFS, gitDir, copy string) (env, read []string) {
	if gitDir != noRepository {
		read = realPathsIn(h, []string{gitDir})
	}
	if len(read) == 1 {
		return gitEnv(read[0], copy), read
	}
	return gitEnv(noRepository, copy), nil
}

// realPathsIn resolves each existing path's links in h (Seatbelt matches
// real paths) and drops the empty and the missing.
func realPathsIn(h hostFS, paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if real, err := h.EvalSymlinks(p); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// seatbeltProfile writes the Seatbelt profile (SBPL) of p. Every path in p
// must be absolute and real; one that is not is an error, as is a path the
// profile language could not hold.
func seatbeltProfile(p seatbeltPolicy) (string, error) {
	for _, d := range slices.Concat(p.Read, p.Write) {
		if !path.IsAbs(d) || path.Clean(d) != d || strings.ContainsAny(d, "\x00\n\r") {
			return "", fmt.Errorf("seatbelt: %q is not a clean absolute path", d)
		}
	}
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n\n")
	b.WriteString("; Processes: its own, and signals and inspection only within this sandbox.\n")
	b.WriteString("(allow process-fork)\n(allow signal (target same-sandbox))\n(allow process-info* (target same-sandbox))\n\n")

	read := readable(p.Read)
	b.WriteString("; Read and run: the system, the toolchains, the repository (read-only).\n")
	rule(&b, "allow file-read* process-exec file-map-executable", subpaths(read))
	etc := etcFilters()
	rule(&b, "allow file-read*", etc)
	b.WriteString("\n; Read, write and run: the view of the workspace and its private tmp, home and cache.\n")
	rule(&b, "allow file-read* file-write* process-exec file-map-executable", subpaths(p.Write))

	b.WriteString("\n; Looking up the directories on the way, the top-level links, and listing / itself.\n")
	b.WriteString("(allow file-read* (literal \"/\"))\n")
	rule(&b, "allow file-read-metadata", literals(ancestors(slices.Concat(read, p.Write), append([]string{macEtc}, macLinks...))))

	b.WriteString("\n; Devices: the harmless ones, and pseudo-terminals the command opens itself.\n")
	var devs []string
	for _, n := range devNodes {
		devs = append(devs, "/dev/"+n)
	}
	rule(&b, "allow file-read* file-write-data file-ioctl", literals(devs))
	b.WriteString("(allow file-read* file-write-data (subpath \"/dev/fd\"))\n")
	b.WriteString("(allow pseudo-tty)\n(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\"))\n")
	b.WriteString("(allow file-read* file-write* file-ioctl (require-all (regex #\"^/dev/ttys[0-9]+$\") (extension \"com.apple.sandbox.pty\")))\n")

	b.WriteString("\n; The system: kernel values, services, semaphores.\n")
	var sysctls []string
	for _, n := range seatbeltSysctls {
		sysctls = append(sysctls, "(sysctl-name "+quote(n)+")")
	}
	for _, n := range seatbeltSysctlPrefixes {
		sysctls = append(sysctls, "(sysctl-name-prefix "+quote(n)+")")
	}
	rule(&b, "allow sysctl-read", sysctls)
	b.WriteString("(allow sysctl-write (sysctl-name \"kern.grade_cputype\") (sysctl-name \"kern.tcsm_enable\"))\n")
	services := seatbeltServices
	if p.Network {
		services = slices.Concat(services, seatbeltNetServices)
	}
	var names []string
	for _, s := range services {
		names = append(names, "(global-name "+quote(s)+")")
	}
	rule(&b, "allow mach-lookup", names)
	b.WriteString("(allow ipc-posix-sem)\n(allow ipc-posix-shm-read* (ipc-posix-name \"apple.shm.notification_center\"))\n")

	b.WriteString("\n; Unix sockets only in its own dirs: no host daemon is reachable.\n")
	b.WriteString("(allow system-socket (socket-domain AF_UNIX))\n")
	var socks []string
	for _, d := range p.Write {
		socks = append(socks, "(local unix-socket (subpath "+quote(d)+"))")
	}
	rule(&b, "allow network-bind", socks)
	socks = socks[:0]
	for _, d := range p.Write {
		socks = append(socks, "(remote unix-socket (subpath "+quote(d)+"))")
	}
	rule(&b, "allow network-outbound", socks)

	if p.Network {
		b.WriteString("\n; The network: the user opted in.\n")
		b.WriteString("(allow system-socket (socket-domain AF_INET) (socket-domain AF_INET6) (socket-domain AF_SYSTEM))\n")
		b.WriteString("(allow network-outbound (remote ip \"*:*\"))\n(allow network-inbound (local ip \"*:*\"))\n(allow network-bind (local ip \"*:*\"))\n")
		b.WriteString("(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))\n")
	} else {
		b.WriteString("\n; No network: no IP socket can reach anything, loopback included (the host's own services listen there).\n")
	}
	return b.String(), nil
}

// readable is what every command may read: the system's directories on
// every system (those macOS lacks match nothing) and macOS's own, then
// extra, without repeats.
func readable(extra []string) []string {
	var out []string
	for _, d := range slices.Concat(systemDirs, macSystemDirs, extra) {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// etcFilters match the allowlisted parts of /etc (etcAllowed) where macOS
// keeps them: a name, and everything below it when it is a directory;
// names with * as a regular expression.
func etcFilters() []string {
	var out []string
	for _, name := range slices.Concat(etcAllowed, macEtcAllowed) {
		p := macEtc + "/" + name
		if !strings.Contains(name, "*") {
			out = append(out, "(subpath "+quote(p)+")")
			continue
		}
		re := regexp.QuoteMeta(p)
		re = strings.ReplaceAll(re, `\*`, `[^/]*`)
		out = append(out, "(regex "+quote("^"+re+"(/.*)?$")+")")
	}
	return out
}

// ancestors lists the directories above each of paths (not / itself,
// which is added) and the extra entries, without repeats.
func ancestors(paths, extra []string) []string {
	out := []string{"/"}
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range paths {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			add(d)
		}
	}
	for _, p := range extra {
		add(p)
	}
	return out
}

func subpaths(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, "(subpath "+quote(d)+")")
	}
	return out
}

func literals(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, "(literal "+quote(p)+")")
	}
	return out
}

// rule writes one (allow OPERATIONS FILTER…) rule, one filter a line, or
// nothing when there are no filters (an allow without filters would allow
// everything).
func rule(b *strings.Builder, head string, filters []string) {
	if len(filters) == 0 {
		return
	}
	b.WriteString("(" + head)
	for _, f := range filters {
		b.WriteString("\n  " + f)
	}
	b.WriteString(")\n")
}

// quote writes s as an SBPL string: in double quotes, with backslashes and
// quotes escaped.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// macRlimits are the rlimits of a command under Seatbelt: file size (in
// whole KiB, ulimit's unit), core dumps and, when set, CPU time. macOS
// enforces no memory rlimit, and a process-count one counts all the
// user's processes, so neither is set.
func macRlimits(l Limits) []Rlimit {
	r := []Rlimit{{"FSIZE", uint64((l.FileSize+1023)/1024) * 1024}, {"CORE", 0}}
	if l.CPU > 0 {
		r = append(r, Rlimit{"CPU", seconds(l.CPU)})
	}
	return r
}

// ulimitFlags are bash's ulimit options for the rlimits macRlimits sets.
var ulimitFlags = map[string]string{"FSIZE": "-f", "CORE": "-c", "CPU": "-t"}

// ulimitScript is what the shell runs before the command ($1, run by the
// shell $0): it sets the rlimits soft and hard, so the command cannot
// raise them again.
func ulimitScript(rlimits []Rlimit) string {
	s := ""
	for _, r := range rlimits {
		v := r.Value
		if r.Name == "FSIZE" {
			v /= 1024 // ulimit -f counts KiB
		}
		s += fmt.Sprintf("ulimit %s %d && ", ulimitFlags[r.Name], v)
	}
	return s + `exec "$0" -c "$1"`
}
