package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/server/acp"
)

// Malformed input gets JSON-RPC errors, an unknown method "method not
// found", and the server keeps serving.
func TestMalformedInputGetsErrorsNeverACrash(t *testing.T) {
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		acp.Serve(context.Background(), acp.Options{Env: func(string) string { return "" }}, toAgentR, fromAgentW)
		fromAgentW.Close()
	}()
	out := bufio.NewScanner(fromAgentR)
	out.Buffer(make([]byte, 1<<20), 1<<20)
	exchange := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(toAgentW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !out.Scan() {
			t.Fatalf("no answer to %q: %v", line, out.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("answer %q is not JSON", out.Text())
		}
		return m
	}
	code := func(m map[string]any) int {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return int(c)
	}
	for _, tc := range []struct {
		line string
		code int
		id   any
	}{
		{`this is not json`, -32700, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, -32700, nil},
		{`[{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}]`, -32600, nil},
		{`42`, -32600, nil},
		{`{"jsonrpc":"2.0"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":3,"method":7}`, -32600, float64(3)},
		{`{"jsonrpc":"2.0","id":4,"method":"no/such/method","params":{}}`, -32601, float64(4)},
		{`{"jsonrpc":"2.0","id":"five","method":"_agent-lsp/unknown","params":{}}`, -32601, "five"},
		{`{"jsonrpc":"2.0","id":6,"method":"initialize","params":"a string"}`, -32602, float64(6)},
		{`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/"}}`, -32602, float64(7)},
		{`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"none","prompt":[{"type":"text","text":"hi"}]}}`, -32602, float64(8)},
		{`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"none","prompt":[{"type":"nonsense"}]}}`, -32602, float64(9)},
		{`{"jsonrpc":"2.0","id":10,"method":"session/set_mode","params":{"sessionId":"none","modeId":"ask"}}`, -32602, float64(10)},
		// session/delete, which the Go SDK lacks, is served (compat.go).
		{`{"jsonrpc":"2.0","id":"d","method":"session/delete","params":{"sessionId":"none"}}`, -32602, "d"},
		{`{"jsonrpc":"2.0","id":"e","method":"session/delete","params":{}}`, -32602, "e"},
	} {
		m := exchange(tc.line)
		if code(m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s → %v, want code %d and id %v", tc.line, m, tc.code, tc.id)
		}
	}
	// A notification never gets an answer; the next request still does.
	io.WriteString(toAgentW, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"none"}}`+"\n")
	m := exchange(`{"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":1}}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["protocolVersion"] != float64(1) || m["id"] != float64(11) {
		t.Errorf("initialize after the garbage = %v", m)
	}
	// The schema's sessionCapabilities.delete, which the SDK's type lacks, is there.
	if caps := toJSON(m["result"]); !strings.Contains(caps, `"delete":{}`) || !strings.Contains(caps, `"list":{}`) {
		t.Errorf("initialize's capabilities = %s", caps)
	}
	// An over-long line is refused with its id, not the end of the connection.
	m = exchange(`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 11<<20) + `"}}`)
	if code(m) != -32600 || m["id"] != float64(12) {
		t.Errorf("over-long line → %v", m)
	}
	m = exchange(`{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":1}}`)
	if m["result"] == nil {
		t.Errorf("initialize after the long line = %v", m)
	}
	toAgentW.Close()
	<-served
}
