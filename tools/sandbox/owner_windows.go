package sandbox

import "golang.org/x/sys/windows"

// processStart returns when pid started (its creation time), telling it
// apart from a later process given the same pid.
func processStart(pid int) (uint64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var exit uint32
	if windows.GetExitCodeProcess(h, &exit) == nil && exit != 259 { // STILL_ACTIVE
		return 0, false
	}
	var creation, exitTime, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &creation, &exitTime, &kernel, &user); err != nil {
		return 0, true
	}
	return uint64(creation.Nanoseconds() / 1e6), true
}

// machineMemory is not asked here: the default memory bound applies (and
// level none bounds nothing).
func machineMemory() int64 { return 0 }
