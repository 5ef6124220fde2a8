package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Registry holds the tools offered to the model. It is read-only after
// construction and safe for concurrent use.
type Registry struct {
	tools    map[string]Tool
	resolved map[string]*jsonschema.Resolved
	order    []string
}

// NewRegistry registers tools in the order given (the order the model sees).
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}, resolved: map[string]*jsonschema.Resolved{}}
	for _, t := range ts {
		if _, dup := r.tools[t.Name()]; dup {
			return nil, fmt.Errorf("tools: %s registered twice", t.Name())
		}
		res, err := resolveSchema(t.Schema())
		if err != nil {
			return nil, fmt.Errorf("tools: schema of %s: %w", t.Name(), err)
		}
		r.tools[t.Name()] = t
		r.resolved[t.Name()] = res
		r.order = append(r.order, t.Name())
	}
	return r, nil
}

// resolvedSchemas caches resolved schemas by their text: every run builds
// its registry, and resolving the same half-dozen schemas again cost about
// a millisecond each time. A Resolved is read-only once made (Validate
// keeps its state per call), so runs share them. Bounded, since MCP
// servers bring schemas of their own.
var resolvedSchemas struct {
	sync.Mutex
	m map[string]*jsonschema.Resolved
}

const maxResolvedSchemas = 512

func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	key := string(raw)
	resolvedSchemas.Lock()
	res, ok := resolvedSchemas.m[key]
	resolvedSchemas.Unlock()
	if ok {
		return res, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	resolvedSchemas.Lock()
	defer resolvedSchemas.Unlock()
	if resolvedSchemas.m == nil {
		resolvedSchemas.m = map[string]*jsonschema.Resolved{}
	}
	if len(resolvedSchemas.m) < maxResolvedSchemas {
		resolvedSchemas.m[key] = res
	}
	return res, nil
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, len(r.order))
	for i, n := range r.order {
		out[i] = r.tools[n]
	}
	return out
}

// Lookup returns the tool with that name. A nil registry has no tools.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	t, ok := r.tools[name]
	return t, ok
}

// Subset returns a registry of the named tools that exist here (e.g. the
// read-only ones for a sub-agent or degraded mode).
func (r *Registry) Subset(keep func(Tool) bool) *Registry {
	s := &Registry{tools: map[string]Tool{}, resolved: map[string]*jsonschema.Resolved{}}
	for _, n := range r.order {
		if keep(r.tools[n]) {
			s.tools[n], s.resolved[n] = r.tools[n], r.resolved[n]
			s.order = append(s.order, n)
		}
	}
	return s
}

// With returns a registry of r's tools followed by ts (tools found at run
// time, an MCP server's); r is unchanged and its schemas are not resolved
// again. A nil r has no tools of its own.
func (r *Registry) With(ts ...Tool) (*Registry, error) {
	if r == nil {
		return NewRegistry(ts...)
	}
	added, err := NewRegistry(ts...)
	if err != nil {
		return nil, err
	}
	out := &Registry{tools: maps.Clone(r.tools), resolved: maps.Clone(r.resolved), order: slices.Clone(r.order)}
	for _, n := range added.order {
		if _, dup := out.tools[n]; dup {
			return nil, fmt.Errorf("tools: %s registered twice", n)
		}
		out.tools[n], out.resolved[n] = added.tools[n], added.resolved[n]
		out.order = append(out.order, n)
	}
	return out, nil
}

// Execute validates args against the tool's schema and runs it. An unknown tool
// or invalid arguments is an error Result the model can correct, never a Go error.
func (r *Registry) Execute(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	if r == nil {
		return Errorf("unknown tool %q: no tools are available in this conversation; answer in text", name), nil
	}
	t, ok := r.tools[name]
	if !ok {
		names := append([]string(nil), r.order...)
		sort.Strings(names)
		return Errorf("unknown tool %q; available tools: %s", name, strings.Join(names, ", ")), nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return Errorf("arguments for %s are not valid JSON (%v); send one JSON object matching the schema", name, err), nil
	}
	if _, isObject := instance.(map[string]any); !isObject {
		return Errorf("arguments for %s must be a JSON object, got %s", name, args), nil
	}
	if err := r.resolved[name].Validate(instance); err != nil {
		return Errorf("invalid arguments for %s: %v; schema: %s", name, err, t.Schema()), nil
	}
	return t.Execute(ctx, args)
}

// NewDefaultRegistry offers the standard tools over w, in the order the model sees them.
func NewDefaultRegistry(w *Workspace, policy *Policy, approver Approver, limits CommandLimits) *Registry {
	r, err := NewRegistry(
		NewReadFile(w), NewListFiles(w), NewSearch(w),
		NewWriteFile(w), NewEditFile(w),
		NewExecuteCommand(w, policy, approver, limits),
	)
	if err != nil {
		panic(err) // fixed set of tools: only a programming error gets here
	}
	return r
}
