package sandbox

// What a command may see of the system, one list per kind, on every system:
// Linux builds the command's new root and its Landlock rules from these.

// systemDirs are the top-level directories of programs and libraries, bound
// read-only (or, where /usr is merged, recreated as the same links).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store"}

// etcAllowed are the parts of /etc that programs need to run, resolve names,
// check certificates and find users — never shadow files, host or TLS
// private keys, sudoers or the host's other configuration. Names with * are
// globs.
var etcAllowed = []string{
	"passwd", "group", "hosts", "hostname", "resolv.conf", "nsswitch.conf", "host.conf", "gai.conf",
	"networks", "protocols", "services", "rpc", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"localtime", "timezone", "os-release", "lsb-release", "debian_version", "issue", "mime.types",
	"inputrc", "terminfo", "alternatives", "bash.bashrc", "profile", "shells", "login.defs", "magic", "mailcap",
	"ssl/certs", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf", "pki/tls/certs", "pki/ca-trust",
	"crypto-policies", "java-*", "python3*", "perl", "fonts",
}

// devNodes are the devices a command gets; everything else of /dev (disks,
// the host's terminals, /dev/log's socket) does not exist for it.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// maskedPaths are what runc hides by default of /proc and /sys, Linux's
// views of the whole machine: the kernel's memory, the keys of every
// user (their descriptions), timers, scheduler and device state. Only
// under what the new root mounts (it has no /sys at all), and only what
// the kernel has.
var maskedPaths = []string{
	"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/key-users", "/proc/latency_stats",
	"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
	"/sys/firmware", "/sys/devices/virtual/powercap",
}

// readOnlyPaths are the parts of /proc that change the kernel when written
// (sysctls, SysRq, interrupt and bus settings): read-only, as runc makes them.
var readOnlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
