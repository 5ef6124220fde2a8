package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// offer is a server's tool as the model sees it, prepared once per listing.
type offer struct {
	name     string // mcp__SERVER__TOOL
	remote   string // the server's own name for it
	desc     string
	schema   json.RawMessage
	readOnly bool // the server's readOnlyHint
}

// prepare turns a server's tool list into offers, leaving out (and saying
// so) what the model cannot be given: a name that collides once cut to the
// allowed characters, a schema that is too large or not an object.
func prepare(server string, listed []*sdk.Tool) ([]offer, []string) {
	var offers []offer
	var warns []string
	if len(listed) > maxTools {
		warns = append(warns, fmt.Sprintf("it lists %d tools; only the first %d are offered", len(listed), maxTools))
		listed = listed[:maxTools]
	}
	seen := map[string]string{}
	for _, t := range listed {
		name := ToolName(server, t.Name)
		if other, dup := seen[name]; dup {
			warns = append(warns, fmt.Sprintf("tool %q left out: its name becomes %s, as %q's does", tools.Printable(t.Name), name, tools.Printable(other)))
			continue
		}
		schema, note, ok := inputSchema(t.InputSchema)
		if !ok {
			warns = append(warns, fmt.Sprintf("tool %q left out: %s", tools.Printable(t.Name), note))
			continue
		}
		if note != "" {
			warns = append(warns, fmt.Sprintf("tool %q: %s", tools.Printable(t.Name), note))
		}
		seen[name] = t.Name
		offers = append(offers, offer{
			name: name, remote: t.Name, desc: description(server, t.Description), schema: schema,
			readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		})
	}
	return offers, warns
}

// inputSchema makes a tool's schema one the registry can check arguments
// against and every provider takes: an object schema without "$schema",
// at most 32 KB. A schema our validator cannot read is replaced by a plain
// object one (the server still checks its arguments), and a note says so.
func inputSchema(v any) (json.RawMessage, string, bool) {
	raw, err := json.Marshal(v)
	if err != nil || len(raw) > maxSchemaLen {
		return nil, fmt.Sprintf("its input schema is unreadable or over %d KB", maxSchemaLen>>10), false
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]any{}
	}
	delete(m, "$schema")
	switch t := m["type"]; t {
	case nil:
		m["type"] = "object"
	case "object":
	default:
		return nil, fmt.Sprintf("its input schema is not an object (type %v)", t), false
	}
	out, _ := json.Marshal(m)
	var s jsonschema.Schema
	err = json.Unmarshal(out, &s)
	if err == nil {
		_, err = s.Resolve(nil)
	}
	if err != nil {
		return json.RawMessage(`{"type":"object"}`), fmt.Sprintf("its input schema could not be read (%v); arguments go to the server unchecked", err), true
	}
	return out, "", true
}

// tool is one offer bound to a run: its approver and output limit.
type tool struct {
	offer
	srv       *server
	allowed   bool // in allowed_tools
	approver  tools.Approver
	maxOutput int
	timeout   time.Duration
}

func (t *tool) Name() string            { return t.name }
func (t *tool) Description() string     { return t.desc }
func (t *tool) Schema() json.RawMessage { return t.schema }

// ReadOnly is the server's readOnlyHint: calls may run side by side and a
// sub-agent gets the tool. It never spares the approval.
func (t *tool) ReadOnly() bool { return t.readOnly }

// Execute asks for approval (unless allowed), then calls the tool with the
// run's context: cancelling the run cancels the call (the SDK sends
// notifications/cancelled). A refusal, a server error, a timeout or a
// server dying mid-call is an observation the model can work with; only
// the run's own cancellation is a Go error.
func (t *tool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	ok, err := t.approve(ctx, args)
	if err != nil {
		return tools.Result{}, err
	}
	if !ok {
		return tools.Errorf("the user did not allow %s; do without it or ask the user to do it", t.name), nil
	}
	c, err := t.srv.ensure(ctx)
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	if err != nil {
		return tools.Errorf("the MCP server %s is not available: %v", t.srv.cfg.Name, err), nil
	}
	t.srv.begin()
	defer t.srv.end()
	callCtx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	res, err := c.sess.CallTool(callCtx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case err == nil:
		return render(t.srv.cfg.Name, t.remote, res, t.maxOutput), nil
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return tools.Errorf("%s gave no answer within %s (the server's timeout_s); the call was cancelled", t.name, t.timeout), nil
	case ended(c, err):
		return tools.Errorf("the MCP server %s exited during the call to %s, which may or may not have taken effect; it is restarted once for the next call", t.srv.cfg.Name, t.name), nil
	}
	t.srv.mu.Lock()
	err = t.srv.redact(err)
	t.srv.mu.Unlock()
	return tools.Errorf("%s failed: %v", t.name, err), nil
}

// ended reports whether the call failed because the connection ended (the
// server died). An error the server answered with did not; for any other,
// the end may take a moment to be noticed.
func ended(c *live, err error) bool {
	var answered *jsonrpc.Error
	if errors.As(err, &answered) {
		return false
	}
	select {
	case <-c.done:
		return true
	case <-time.After(500 * time.Millisecond):
		return false
	}
}

// approve asks the run's approver unless the tool is allowed, one question
// at a time. No approver means nobody can ask: denied.
func (t *tool) approve(ctx context.Context, args json.RawMessage) (bool, error) {
	if t.allowed || t.srv.allowedAlways(t.remote) {
		return true, nil
	}
	if t.approver == nil {
		return false, nil
	}
	pool := t.srv.pool
	pool.ask.Lock()
	defer pool.ask.Unlock()
	if t.srv.allowedAlways(t.remote) {
		return true, nil
	}
	reason := fmt.Sprintf("a tool of the MCP server %s (%s config); it is not in the server's allowed_tools", t.srv.cfg.Name, t.srv.cfg.Origin)
	d, err := t.approver.Approve(ctx, tools.ApprovalRequest{Command: t.name + " " + argsPreview(args), Reasons: []string{reason}})
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return false, nil
	}
	switch d {
	case tools.AllowAlways:
		t.srv.allowAlways(t.remote)
		return true, nil
	case tools.AllowOnce:
		return true, nil
	}
	return false, nil
}

// maxArgsShown bounds the arguments in an approval question; past it the
// middle is cut (and says so), the start and end stay in view.
const maxArgsShown = 2000

func argsPreview(args json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		b.Reset()
		b.Write(args)
	}
	return tools.CutMiddle(b.String(), maxArgsShown)
}
