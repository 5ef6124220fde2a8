package sandbox

import (
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// diskQuota bounds what one command writes in total. A size-limited tmpfs
// bounds each private dir inside the sandbox, but the run's cache and view
// live on the host's disk, where nothing but a check can: so the host adds
// up the command's tmpfs mounts (through the helper's root) and the host
// dirs it writes, every so often while it runs, and kills it past the limit.
type diskQuota struct {
	limit   int64
	counted []string // host dirs that hold only what commands wrote
	grown   []string // host dirs whose growth since the command started counts (a copy)
	tmpfs   []string // tmpfs mounts inside the command's root
	base    int64    // the usage of grown at the start
}

// start records the usage the command's writes are counted from.
func (q *diskQuota) start() {
	q.base = usage(q.grown)
}

// over reports whether the command whose helper is pid wrote more than the
// limit, and how long the check took (the next one waits in proportion).
func (q *diskQuota) over(pid int) (bool, time.Duration) {
	began := time.Now()
	used := usage(q.counted) + usage(q.grown) - q.base
	for _, p := range q.tmpfs {
		var st unix.Statfs_t
		if unix.Statfs("/proc/"+strconv.Itoa(pid)+"/root"+p, &st) == nil {
			used += int64(st.Blocks-st.Bfree) * st.Bsize
		}
	}
	return used > q.limit, time.Since(began)
}

// quotaInterval is the first wait between two checks; a check that takes
// long (a big cache) is made twenty times less often than it lasts.
const quotaInterval = 200 * time.Millisecond

func (q *diskQuota) next(took time.Duration) time.Duration {
	return max(quotaInterval, 20*took)
}
