package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestDisplayErrorKeepsCodeAndData(t *testing.T) {
	plain := jsonrpc2.NewError(jsonrpc2.InvalidParams, "no such thing")
	if got := displayError(plain); got != error(plain) {
		t.Errorf("an error with nothing to escape was replaced: %v", got)
	}
	coded := &jsonrpc2.Error{Code: codeRequestFailed, Message: "agent-lsp: \x1b]0;title\x07 \u202eevil", Data: jsonrpc2.RawMessage(`{"x":1}`)}
	for _, err := range []error{coded, fmt.Errorf("wrapped: %w", coded), errors.New("plain \x1b[2K")} {
		got := displayError(err)
		var wire *jsonrpc2.Error
		if !errors.As(got, &wire) {
			t.Fatalf("%v: not a wire error: %T", err, got)
		}
		if !strings.Contains(wire.Message, `\x1b`) || strings.Contains(wire.Message, "\x1b") || strings.Contains(wire.Message, "\u202e") {
			t.Errorf("%q: message %q", err, wire.Message)
		}
		var before *jsonrpc2.Error
		if errors.As(err, &before) && (wire.Code != before.Code || string(wire.Data) != string(before.Data)) {
			t.Errorf("%q: code %d data %s, want %d %s", err, wire.Code, wire.Data, before.Code, before.Data)
		}
	}
	if displayError(nil) != nil {
		t.Error("nil became an error")
	}
}

func TestDisplayResultEscapesEveryString(t *testing.T) {
	type inner struct {
		Notes []string `json:"notes"`
	}
	type result struct {
		ID     string  `json:"id"`
		Answer string  `json:"answer"`
		Count  int64   `json:"count"`
		Inner  inner   `json:"inner"`
		Lone   string  `json:"lone"`
		Nil    *string `json:"nil"`
	}
	clean := result{ID: "run-1", Answer: "plain <b> & \"quoted\"\n\tline — 日本", Count: 1 << 60}
	if got, reencoded := displayResult(clean).(jsonrpc2.RawMessage); reencoded {
		t.Errorf("a result with nothing to escape was re-encoded: %s", got)
	}
	hostile := result{ID: "run-2", Answer: "a\x1b]52;c;eA==\x07", Count: 1 << 60, Inner: inner{Notes: []string{"\u202eevil", "ok\r\n"}}, Lone: "x\ry"}
	raw, ok := displayResult(hostile).(jsonrpc2.RawMessage)
	if !ok {
		t.Fatalf("not re-encoded: %T", displayResult(hostile))
	}
	var got result
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := result{ID: "run-2", Answer: `a\x1b]52;c;eA==\x07`, Count: 1 << 60, Inner: inner{Notes: []string{`\u202eevil`, "ok\r\n"}}, Lone: `x\ry`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if displayResult(nil) != nil {
		t.Error("nil became a result")
	}
}
