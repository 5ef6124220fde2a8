package tools

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/tools/projectfile"
)

//go:embed read_file.md
var readFileDescription string

const (
	defaultReadLimit = 2000    // lines per read
	maxReadBytes     = 100_000 // bytes of text per read
	countAheadBytes  = 1 << 20 // read past the lines returned, to count the rest
)

type readFileParams struct {
	Path   string `json:"path" jsonschema:"file path, relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of lines to return (default 2000)"`
}

func init() {
	Present("read_file", Presentation{Kind: KindRead, PathArg: "path", LineArg: "offset",
		Title: func(c Call) string { return "Read " + c.Path("path") }})
}

// NewReadFile reads files through the workspace view. A file on disk is
// read as far as the lines returned (and, to count what follows, at most
// countAheadBytes more), never whole: a line limit of 10 costs 10 lines
// of a 1 GiB file.
func NewReadFile(w *Workspace) Tool {
	return newTypedTool("read_file", w.describe(readFileDescription), true, func(ctx context.Context, p readFileParams) (Result, error) {
		f, disk, err := w.openRead(p.Path)
		if err != nil {
			return pathError(err), nil
		}
		src := io.Reader(strings.NewReader(f.Text))
		size := int64(len(f.Text))
		if disk != nil {
			defer disk.Close()
			src, size = disk, -1
			if fi, err := disk.Stat(); err == nil {
				size = fi.Size()
			}
		}
		return numberedLines(ctx, f, src, size, disk == nil, p.Offset, p.Limit)
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
	case errors.Is(err, ErrTooLarge):
		return Errorf("%v; read_file reads it in parts (offset, limit)", err)
	}
	return Errorf("%v", err)
}

// ErrNotRegular is returned where a file's text is wanted and the path is a
// FIFO, a device, a socket, a directory or (swapped in late) a symlink.
var ErrNotRegular = projectfile.ErrNotRegular

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
		err = fmt.Errorf("%w (%s)", ErrNotRegular, projectfile.Kind(fi.Mode()))
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

// numberedLines reads lines offset.. of src (f's text, size bytes in all,
// or -1 if unknown) up to limit lines and maxReadBytes, numbered. A line
// longer than that is cut, and the read ends with it. Data is f, its Text
// left empty: the lines are in the result's text.
func numberedLines(ctx context.Context, f File, src io.Reader, size int64, inMemory bool, offset, limit int) (Result, error) {
	f.Text = ""
	lr := newLineReader(src)
	if head, _ := lr.r.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
		return Errorf("%s is a binary file", f.Path), nil
	}
	offset, limit = max(offset, 1), cmp.Or(max(limit, 0), defaultReadLimit)
	more, err := lr.skip(ctx, offset-1)
	if err != nil {
		return readError(ctx, f, err)
	}
	if !more {
		if lr.lines == 0 {
			return Result{Text: fmt.Sprintf("(%s is empty)", f.Path), Data: f}, nil
		}
		return Errorf("%s has %d lines; offset %d is past the end", f.Path, lr.lines, offset), nil
	}
	text, last, err := lr.numbered(offset, limit)
	if err != nil {
		return readError(ctx, f, err)
	}
	note, err := lr.goesOn(ctx, offset, last, size, inMemory)
	if err != nil {
		return readError(ctx, f, err)
	}
	return Result{Text: text + note, Data: f}, nil
}

// numbered reads up to limit lines from here, line offset, and
// maxReadBytes of text: the first line cut to that, with a note, and no
// other line shown in part. last is the last line shown.
func (l *lineReader) numbered(offset, limit int) (text string, last int, err error) {
	var b strings.Builder
	last = offset - 1
	for i := offset; i < offset+limit; i++ {
		room := maxReadBytes - b.Len()
		if i == offset {
			room = maxReadBytes
		} else if room < 0 {
			break
		}
		line, cut, ok, err := l.next(room)
		if err != nil {
			return "", 0, err
		}
		if !ok || (cut && i > offset) {
			break
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i, line)
		last = i
		if cut {
			fmt.Fprintf(&b, "(line %d is longer than %d bytes: only its start is shown)\n", i, maxReadBytes)
			break
		}
	}
	return b.String(), last, nil
}

// goesOn is the note for lines after last, "" when there are none: how to
// read on and, when counting them cost at most countAheadBytes (or the text
// is inMemory already), how many lines the file has.
func (l *lineReader) goesOn(ctx context.Context, offset, last int, size int64, inMemory bool) (string, error) {
	budget := int64(countAheadBytes)
	if inMemory || (size >= 0 && size-l.read <= countAheadBytes) {
		budget = -1 // the rest is in memory, or small: count it
	}
	total, known, err := l.count(ctx, budget)
	switch {
	case err != nil:
		return "", err
	case known && total > last:
		return fmt.Sprintf("(showing lines %d-%d of %d; call read_file with offset=%d to read on)\n", offset, last, total, last+1), nil
	case known:
		return "", nil
	}
	inAll := ""
	if size >= 0 {
		inAll = ", " + byteSize(size) + " in all"
	}
	return fmt.Sprintf("(showing lines %d-%d; the file goes on%s; call read_file with offset=%d to read on)\n", offset, last, inAll, last+1), nil
}

// readError is the result of a read that failed midway: the run's end, or
// the error for the model.
func readError(ctx context.Context, f File, err error) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	return Errorf("%s: %v", f.Path, err), nil
}

// readChunk is the buffer a read of lines goes through.
const readChunk = 64 << 10

// lineReader reads lines through a buffer of readChunk bytes, holding no
// more of a line than asked for. Lines are split at "\n" as
// strings.SplitAfter splits them: a last line without one counts.
type lineReader struct {
	r     *bufio.Reader
	lines int   // lines begun
	mid   bool  // inside the last line begun, its end not read yet
	read  int64 // bytes consumed
	buf   []byte
}

func newLineReader(src io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(src, readChunk)}
}

// chunk reads the next piece of a line: up to and including its "\n", or
// as much as the buffer holds. It is valid until the next read; err is
// io.EOF at the end (with the last piece, if any).
func (l *lineReader) chunk() ([]byte, error) {
	c, err := l.r.ReadSlice('\n')
	if len(c) > 0 {
		if !l.mid {
			l.lines++
		}
		l.mid = c[len(c)-1] != '\n'
		l.read += int64(len(c))
	}
	if err == bufio.ErrBufferFull {
		err = nil
	}
	return c, err
}

// skip reads past the first n lines; more says a line follows.
func (l *lineReader) skip(ctx context.Context, n int) (more bool, err error) {
	for i := 0; l.lines < n || l.mid; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		if _, err := l.chunk(); err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
	}
	_, err = l.r.Peek(1)
	if err == io.EOF {
		return false, nil
	}
	return err == nil, err
}

// next reads the line that starts here, without its line break and the
// CRs before it, keeping at most limit bytes of it. A longer line is cut
// (at a character's start), the rest of it left unread. ok is false at the
// end. The line is valid until the next call.
func (l *lineReader) next(limit int) (line []byte, cut, ok bool, err error) {
	l.buf = l.buf[:0]
	for {
		c, err := l.chunk()
		if err != nil && err != io.EOF {
			return nil, false, false, err
		}
		ok = ok || len(c) > 0
		ended := err == io.EOF || !l.mid
		c = bytes.TrimSuffix(c, []byte("\n"))
		keep := min(len(c), max(limit-len(l.buf), 0))
		// Past the limit, only CRs that the line's end drops may come.
		if len(bytes.TrimRight(c[keep:], "\r")) > 0 {
			return cutRune(append(l.buf, c[:keep]...)), true, true, nil
		}
		l.buf = append(l.buf, c[:keep]...)
		if ended {
			return bytes.TrimRight(l.buf, "\r"), false, ok, nil
		}
	}
}

// cutRune drops the end of b that is not a whole UTF-8 character.
func cutRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// count reads on to the end counting lines, unless that takes more than
// budget bytes (-1: no limit); known says it got there.
func (l *lineReader) count(ctx context.Context, budget int64) (total int, known bool, err error) {
	start := l.read
	for i := 0; budget < 0 || l.read-start <= budget; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		if _, err := l.chunk(); err != nil {
			if err == io.EOF {
				return l.lines, true, nil
			}
			return 0, false, err
		}
	}
	return 0, false, nil
}
