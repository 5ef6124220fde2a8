package sandbox

import (
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// diskQuota bounds what one command writes where no file system bounds it:
// below full (a copy of the workspace and scratch dirs on the host's disk),
// at full where the view is a copy or its overlay cannot have a layer
// (Caps.Bounded), and for a Spec.Cache on the host's disk. There nothing
// but a check can: so the host adds up the command's private tmpfs (its
// /tmp, which holds its home too, through the helper's root) and the host
// dirs it writes, every so often while it runs, and kills it past the
// limit. Where the view's layer and the private tmpfs bound everything, no
// check runs.
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
	root := "/proc/" + strconv.Itoa(pid) + "/root"
	if ownRoot(root) {
		for _, p := range q.tmpfs {
			var st unix.Statfs_t
			if unix.Statfs(root+p, &st) == nil && st.Type == unix.TMPFS_MAGIC {
				used += int64(st.Blocks-st.Bfree) * st.Bsize
			}
		}
	}
	return used > q.limit, time.Since(began)
}

// ownRoot says whether the helper at root (/proc/PID/root) has its own
// root in place. Until it has pivoted, its /tmp is the host's, whose
// usage is the whole disk's and none of the command's: counting it killed
// commands as over the limit when a check came before the pivot (a busy
// machine, where the helper's set-up takes longer than the first wait).
func ownRoot(root string) bool {
	var helper, host unix.Stat_t
	if unix.Stat(root, &helper) != nil || unix.Stat("/", &host) != nil {
		return false
	}
	return helper.Dev != host.Dev || helper.Ino != host.Ino
}

// quotaInterval is the first wait between two checks; a check that takes
// long (a big cache) is made twenty times less often than it lasts.
const quotaInterval = 200 * time.Millisecond

func (q *diskQuota) next(took time.Duration) time.Duration {
	return max(quotaInterval, 20*took)
}
