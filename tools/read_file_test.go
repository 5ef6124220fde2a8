package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// allocated runs f and returns the bytes the process allocated meanwhile
// (no test of this package runs in parallel, so they are f's).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// numbered is what read_file shows for lines from..to of hugeFile.
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\tline %d of a huge file\n", i, i)
	}
	return b.String()
}

// Ten lines of a 1 GiB file cost ten lines, not the file: the tools that
// need it whole refuse it by its size, before reading.
func TestToolsReadNoMoreOfAHugeFileThanTheyReturn(t *testing.T) {
	root := t.TempDir()
	hugeFile(t, root, 1<<30)
	r, _ := newTestRegistry(t, root)
	const most = 4 << 20 // far below the file's 1 GiB
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "huge.txt", "limit": 10},
			numbered(1, 10) + "(showing lines 1-10; the file goes on, 1.0 GiB in all; call read_file with offset=11 to read on)\n"},
		{"read_file", map[string]any{"path": "huge.txt", "offset": 500, "limit": 3},
			numbered(500, 502) + "(showing lines 500-502; the file goes on, 1.0 GiB in all; call read_file with offset=503 to read on)\n"},
		{"edit_file", map[string]any{"path": "huge.txt", "old_string": "line 1 of", "new_string": "x"},
			"huge.txt is 1.0 GiB: too large to read whole or change here (the limit is 16.0 MiB); read_file reads it in parts (offset, limit)"},
		{"write_file", map[string]any{"path": "huge.txt", "content": "x\n"},
			"huge.txt is 1.0 GiB: too large to read whole or change here (the limit is 16.0 MiB); read_file reads it in parts (offset, limit)"},
		{"search", map[string]any{"pattern": "line 7 of"},
			"no matches\n(1 file over 4.0 MiB not searched: huge.txt (1.0 GiB); read_file with offset and limit reads a part)\n"},
	} {
		var res Result
		n := allocated(func() { res = call(t, r, c.tool, c.args) })
		if res.Text != c.want {
			t.Errorf("%s %v:\n%s\nwant:\n%s", c.tool, c.args, res.Text, c.want)
		}
		if n > most {
			t.Errorf("%s %v allocated %d bytes, want at most %d", c.tool, c.args, n, most)
		}
		t.Logf("%s %v: %d bytes allocated", c.tool, c.args, n)
	}
}

func TestReadFileCutsALongLineAndCountsWhatFollows(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("€", 40_000) // 120,000 bytes: cut inside a character
	writeTree(t, root, map[string]string{
		"long.txt": long + "\nsecond\r\r\nthird\n",
		"crlf.txt": "a\r\nb\r\n\r\nlast",
		"empty":    "",
		"tail.txt": strings.Repeat("x\n", 10) + strings.Repeat("y", 2<<20) + "\nz\nz\nz\n",
	})
	r, _ := newTestRegistry(t, root)
	res := call(t, r, "read_file", map[string]any{"path": "long.txt"})
	first, rest, _ := strings.Cut(res.Text, "\n")
	shown := strings.TrimPrefix(first, "     1\t")
	if !utf8.ValidString(shown) || len(shown) > maxReadBytes || len(shown) < maxReadBytes-3 || !strings.HasPrefix(long, shown) {
		t.Errorf("long line shown as %d bytes (valid UTF-8: %v)", len(shown), utf8.ValidString(shown))
	}
	if want := "(line 1 is longer than 100000 bytes: only its start is shown)\n(showing lines 1-1 of 3; call read_file with offset=2 to read on)\n"; rest != want {
		t.Errorf("after the long line: %q, want %q", rest, want)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "long.txt", "offset": 2}, "     2\tsecond\n     3\tthird\n"},
		{map[string]any{"path": "crlf.txt"}, "     1\ta\n     2\tb\n     3\t\n     4\tlast\n"},
		{map[string]any{"path": "crlf.txt", "offset": 2, "limit": 1}, "     2\tb\n(showing lines 2-2 of 4; call read_file with offset=3 to read on)\n"},
		{map[string]any{"path": "empty"}, "(empty is empty)"},
		// What follows the lines shown is counted while it is small.
		{map[string]any{"path": "tail.txt", "offset": 12, "limit": 1}, "    12\tz\n(showing lines 12-12 of 14; call read_file with offset=13 to read on)\n"},
		{map[string]any{"path": "tail.txt", "offset": 8, "limit": 1}, "     8\tx\n(showing lines 8-8; the file goes on, 2.0 MiB in all; call read_file with offset=9 to read on)\n"},
		{map[string]any{"path": "tail.txt", "offset": 14}, "    14\tz\n"},
	} {
		if res := call(t, r, "read_file", c.args); res.Text != c.want {
			t.Errorf("read_file %v: %q, want %q", c.args, res.Text, c.want)
		}
	}
	if res := call(t, r, "read_file", map[string]any{"path": "crlf.txt", "offset": 5}); !res.IsError || res.Text != "crlf.txt has 4 lines; offset 5 is past the end" {
		t.Errorf("past the end: %+v", res)
	}
}

// Staged changes and open buffers are in memory already: read_file reads
// them as it always has, before disk, and counts all their lines.
func TestReadFileSeesStagedThenBufferThenDisk(t *testing.T) {
	root := t.TempDir()
	hugeFile(t, root, 1<<30)
	writeTree(t, root, map[string]string{"disk.txt": "on disk\n"})
	overlay := mapOverlay{filepath.Join(resolvedRoot(t, root), "huge.txt"): {text: "in the buffer\nline 2\nline 3\n", version: 7}}
	w, err := NewWorkspace(root, overlay)
	if err != nil {
		t.Fatal(err)
	}
	read := func(args string) string {
		t.Helper()
		res, err := NewReadFile(w).Execute(context.Background(), json.RawMessage(args))
		if err != nil || res.IsError {
			t.Fatalf("read_file %s: %v %s", args, err, res.Text)
		}
		return res.Text
	}
	if got, want := read(`{"path": "huge.txt", "limit": 1}`), "     1\tin the buffer\n(showing lines 1-1 of 3; call read_file with offset=2 to read on)\n"; got != want {
		t.Errorf("buffer: %q, want %q", got, want)
	}
	if _, err := w.Stage("huge.txt", "staged\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := read(`{"path": "huge.txt"}`), "     1\tstaged\n"; got != want {
		t.Errorf("staged: %q, want %q", got, want)
	}
	if got, want := read(`{"path": "disk.txt"}`), "     1\ton disk\n"; got != want {
		t.Errorf("disk: %q, want %q", got, want)
	}
}

func resolvedRoot(t *testing.T, root string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
