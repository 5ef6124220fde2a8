package tools

import (
	"fmt"
	"strings"
)

// middleCut is an io.Writer that keeps the first and last limit/2 bytes of
// what it is given, so the start of the output (the command's context) and the
// end (usually the error) both survive a flood.
type middleCut struct {
	head, tail []byte
	half       int
	total      int
	tailStart  int // index of the oldest byte in tail, a ring once full
}

func newMiddleCut(limit int) *middleCut {
	half := max(limit/2, 1)
	return &middleCut{half: half}
}

func (m *middleCut) Write(p []byte) (int, error) {
	n := len(p)
	m.total += n
	if room := m.half - len(m.head); room > 0 {
		k := min(room, len(p))
		m.head = append(m.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(m.tail) < m.half {
			k := min(m.half-len(m.tail), len(p))
			m.tail = append(m.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= m.half {
			copy(m.tail, p[len(p)-m.half:])
			m.tailStart = 0
			break
		}
		k := copy(m.tail[m.tailStart:], p)
		copy(m.tail, p[k:])
		m.tailStart = (m.tailStart + len(p)) % m.half
		break
	}
	return n, nil
}

func (m *middleCut) String() string {
	tail := append(append([]byte{}, m.tail[m.tailStart:]...), m.tail[:m.tailStart]...)
	kept := len(m.head) + len(tail)
	if kept == m.total {
		return strings.ToValidUTF8(string(m.head)+string(tail), "�")
	}
	return strings.ToValidUTF8(string(m.head), "�") +
		fmt.Sprintf("\n[… %d bytes cut from the middle …]\n", m.total-kept) +
		strings.ToValidUTF8(string(tail), "�")
}

// CutMiddle returns s whole when it has at most limit bytes, otherwise its
// first and last limit/2 bytes around a note of how much was cut: the same
// cut as command output, for other tools' results (an MCP server's).
func CutMiddle(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	m := newMiddleCut(limit)
	m.Write([]byte(s))
	return m.String()
}
