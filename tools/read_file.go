package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

//go:embed read_file.md
var readFileDescription string

const (
	defaultReadLimit = 2000    // lines per read
	maxReadBytes     = 100_000 // bytes of text per read
)

type readFileParams struct {
	Path   string `json:"path" jsonschema:"file path, relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of lines to return (default 2000)"`
}

// NewReadFile reads files through the workspace view.
func NewReadFile(w *Workspace) Tool {
	return newTypedTool("read_file", w.describe(readFileDescription), true, func(ctx context.Context, p readFileParams) (Result, error) {
		f, err := w.Read(p.Path)
		if err != nil {
			return pathError(err), nil
		}
		return numberedLines(f, p.Offset, p.Limit), nil
	})
}

// pathError turns a workspace error into an observation the model can act on.
func pathError(err error) Result {
	switch {
	case errors.Is(err, ErrOutsideWorkspace):
		return Errorf("%v: only paths inside the workspace can be used", err)
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("%v: no such file (use list_files to see what exists)", err)
	case errors.Is(err, ErrNotRegular):
		return Errorf("%v: only regular files can be read or changed", err)
	}
	return Errorf("%v", err)
}

// ErrNotRegular is returned where a file's text is wanted and the path is a
// FIFO, a device, a socket, a directory or (swapped in late) a symlink.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading without ever blocking: O_NONBLOCK keeps
// open(2) from waiting for a FIFO's writer, and the check is fstat of the
// opened file, not a stat before it, so a swap in between cannot slip a FIFO
// or device past it. O_NOFOLLOW refuses a final symlink: callers pass
// resolved paths, so a link found there was swapped in after they checked.
// Every disk read of the package goes through here.
func openRegular(path string) (*os.File, error) {
	f, _, err := openRegularInfo(path)
	return f, err
}

// openRegularInfo is openRegular that also returns what fstat said.
func openRegularInfo(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadRegular reads a whole regular file as openRegular opens it: a FIFO,
// device or socket is an ErrNotRegular at once, never a hang. The server and
// the CLI use it too.
func ReadRegular(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// readPrefix reads r up to limit bytes; more says r held more (one byte
// past the limit was read to know). The buffer starts at size (what fstat
// said; 0 if unknown) and grows with what is read, so a file that grows
// meanwhile costs no more.
func readPrefix(r io.Reader, size int64, limit int) (data []byte, more bool, err error) {
	hint := int(min(max(size, 512), int64(limit))) + 1
	data, err = appendUpTo(r, make([]byte, 0, hint), limit+1)
	if err != nil {
		return nil, false, err
	}
	if len(data) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// appendUpTo appends what r holds to b until r ends or b holds n bytes,
// growing b as needed (never past n).
func appendUpTo(r io.Reader, b []byte, n int) ([]byte, error) {
	for len(b) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(max(cap(b), 512), n-len(b)))
		}
		m, err := r.Read(b[len(b):min(cap(b), n)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// byteSize is a size as people read it: "700 bytes", "4.0 MiB", "1.0 GiB".
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

func numberedLines(f File, offset, limit int) Result {
	if strings.IndexByte(f.Text[:min(len(f.Text), 8000)], 0) >= 0 {
		return Errorf("%s is a binary file", f.Path)
	}
	if offset < 1 {
		offset = 1
	}
	if limit <= 0 {
		limit = defaultReadLimit
	}
	lines := strings.SplitAfter(f.Text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	total := len(lines)
	if total == 0 {
		return Result{Text: fmt.Sprintf("(%s is empty)", f.Path), Data: f}
	}
	if offset > total {
		return Errorf("%s has %d lines; offset %d is past the end", f.Path, total, offset)
	}
	var b strings.Builder
	last := offset - 1
	for i := offset - 1; i < total && i < offset-1+limit; i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		if b.Len()+len(line) > maxReadBytes && i > offset-1 {
			break
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, line)
		last = i + 1
	}
	if last < total {
		fmt.Fprintf(&b, "(showing lines %d-%d of %d; call read_file with offset=%d to read on)\n", offset, last, total, last+1)
	}
	return Result{Text: b.String(), Data: f}
}
