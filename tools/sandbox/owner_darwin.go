package sandbox

import "golang.org/x/sys/unix"

// processStart returns when pid started (microseconds since the epoch, from
// the kernel's process table), telling it apart from a later process given
// the same pid.
func processStart(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return 0, false
	}
	t := kp.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec), true
}

// machineMemory is the machine's memory in bytes, 0 if unknown.
func machineMemory() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return 0
	}
	return int64(n)
}
