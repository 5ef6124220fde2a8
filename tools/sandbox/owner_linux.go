package sandbox

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// processStart returns when pid started (clock ticks after boot, field 22 of
// /proc/PID/stat), telling it apart from a later process given the same pid.
func processStart(pid int) (uint64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parentheses: count
	// fields after its closing one.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, true
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 20 {
		return 0, true
	}
	start, _ := strconv.ParseUint(string(fields[19]), 10, 64)
	return start, true
}

// machineMemory is the machine's memory in bytes, 0 if unknown.
func machineMemory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
