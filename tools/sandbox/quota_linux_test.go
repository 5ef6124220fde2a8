package sandbox

import (
	"os"
	"testing"
)

// A check made before the helper has its own root must not count the
// host's /tmp, whose usage is the disk's: under load the first check came
// before the pivot and killed ordinary commands as over the limit. This
// process stands for a helper that has not pivoted yet.
func TestQuotaIgnoresTheHostsTmpBeforeThePivot(t *testing.T) {
	q := &diskQuota{limit: 1, tmpfs: []string{"/tmp", "/"}}
	q.start()
	if over, _ := q.over(os.Getpid()); over {
		t.Fatal("a helper that has not pivoted was charged with the host's /tmp and / usage")
	}
}
