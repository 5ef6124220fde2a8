// Package tools holds the agent's tools, the registry that validates and runs
// them, the workspace view they read and write (staged changes, then the
// editor's open buffers, then disk), the changeset that becomes the proposal,
// and the policy for running commands.
//
// Invariant: no tool writes the user's files. A write is staged into the
// workspace's changeset and reaches disk only when the user accepts it.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Result is what a tool returns: Text for the model, Data for the UI.
// IsError marks a mistake the model can correct (bad argument, no unique match,
// path outside the workspace); it is fed back as an observation. Only an
// infrastructure failure is a Go error.
type Result struct {
	Text    string
	IsError bool
	Data    any
}

// Errorf builds an error observation for the model.
func Errorf(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// Tool is one capability offered to the model.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON Schema of the input object.
	Schema() json.RawMessage
	// ReadOnly tools change nothing (not even the changeset), so calls to them
	// in one turn may run concurrently.
	ReadOnly() bool
	// Execute runs the tool on arguments already validated against Schema.
	Execute(ctx context.Context, args json.RawMessage) (Result, error)
}

// typedTool adapts a function over a parameter struct to Tool; the struct's
// json and jsonschema tags give the schema (fields without omitempty are required).
type typedTool[P any] struct {
	name, description string
	readOnly          bool
	schema            json.RawMessage
	run               func(context.Context, P) (Result, error)
}

func newTypedTool[P any](name, description string, readOnly bool, run func(context.Context, P) (Result, error)) Tool {
	return &typedTool[P]{name: name, description: description, readOnly: readOnly, schema: SchemaOf[P](), run: run}
}

// typeSchemas caches each parameter type's schema: tools are made for every
// run, and the schema of a type never changes.
var typeSchemas sync.Map // reflect.Type → json.RawMessage

// SchemaOf is the JSON schema of a tool's parameter type P, made once per
// type (reflection costs more than a whole scripted run). Every tool,
// in any package, takes its schema here.
func SchemaOf[P any]() json.RawMessage {
	t := reflect.TypeFor[P]()
	if raw, ok := typeSchemas.Load(t); ok {
		return raw.(json.RawMessage)
	}
	s, err := jsonschema.For[P](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %s: %v", t, err)) // a programming error, caught by any test
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %s: %v", t, err))
	}
	typeSchemas.Store(t, json.RawMessage(raw))
	return raw
}

func (t *typedTool[P]) Name() string            { return t.name }
func (t *typedTool[P]) Description() string     { return t.description }
func (t *typedTool[P]) Schema() json.RawMessage { return t.schema }
func (t *typedTool[P]) ReadOnly() bool          { return t.readOnly }

func (t *typedTool[P]) Execute(ctx context.Context, args json.RawMessage) (Result, error) {
	var p P
	if err := json.Unmarshal(args, &p); err != nil {
		return Errorf("invalid arguments for %s: %v", t.name, err), nil
	}
	return t.run(ctx, p)
}
