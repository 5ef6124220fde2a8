package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
)

// PlanToolName is the tool through which the model keeps its checklist: a
// wire shows its calls as the live plan (ACP's plan updates), in every mode.
const PlanToolName = "update_plan"

func init() {
	tools.Present(PlanToolName, tools.Presentation{Kind: tools.KindThink,
		Title: func(tools.Call) string { return "Update the plan" }})
}

// Checklist statuses, as ACP's plan entries have them.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

// ChecklistStep is one step of the model's checklist.
type ChecklistStep struct {
	Step   string `json:"step" jsonschema:"what the step does, in a few words"`
	Status string `json:"status" jsonschema:"pending, in_progress or completed"`
}

type planParams struct {
	Steps []ChecklistStep `json:"steps" jsonschema:"every step of the task, in order, each with its status"`
}

// ParseChecklist reads an update_plan call's arguments; an error says what
// is wrong with them.
func ParseChecklist(args json.RawMessage) ([]ChecklistStep, error) {
	var p planParams
	if err := json.Unmarshal(args, &p); err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	if len(p.Steps) == 0 {
		return nil, fmt.Errorf("steps is empty: give every step of the task")
	}
	for i, s := range p.Steps {
		if strings.TrimSpace(s.Step) == "" {
			return nil, fmt.Errorf("step %d has no text", i+1)
		}
		switch s.Status {
		case StepPending, StepInProgress, StepCompleted:
		default:
			return nil, fmt.Errorf("step %d: status %q is not pending, in_progress or completed", i+1, s.Status)
		}
	}
	return p.Steps, nil
}

type planTool struct{ schema json.RawMessage }

// NewPlanTool is update_plan: the model's checklist for a task of several
// steps, which the user sees as it goes. It changes nothing, so every mode
// has it.
func NewPlanTool() tools.Tool {
	return &planTool{schema: tools.SchemaOf[planParams]()}
}

func (p *planTool) Name() string { return PlanToolName }
func (p *planTool) Description() string {
	return "Keep a checklist of a task that takes several steps, which the user sees as it goes: call it with every step and its status (pending, in_progress, completed) when you start, and again whenever a step starts or is done. Skip it for a one-step task."
}
func (p *planTool) Schema() json.RawMessage { return p.schema }
func (p *planTool) ReadOnly() bool          { return true }
func (p *planTool) Execute(_ context.Context, args json.RawMessage) (tools.Result, error) {
	steps, err := ParseChecklist(args)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	done := 0
	for _, s := range steps {
		if s.Status == StepCompleted {
			done++
		}
	}
	return tools.Result{Text: fmt.Sprintf("Plan updated: %d of %d steps done.", done, len(steps))}, nil
}
