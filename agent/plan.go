package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// PlanStep is one step of a plan: what to achieve and how to tell it is done.
type PlanStep struct {
	Goal string `json:"goal"`
	Done string `json:"done"`
}

type planAnswer struct {
	Steps []PlanStep `json:"steps"`
}

const maxPlanSteps = 8

const plannerPrompt = `You are the planner of a coding agent. Break the user's task into a short ordered plan
(at most 8 steps) that the agent will carry out one step at a time with tools (read, search, edit files, run commands).
Answer with one JSON object only: {"steps": [{"goal": "what to achieve", "done": "how to tell it is done"}]}`

const replannerPrompt = `You are the planner of a coding agent. A step of the plan failed. Given the task, the plan,
what was done and the failure, give the steps that remain to finish the task (at most 8), adapted to what happened.
Answer with one JSON object only: {"steps": [{"goal": "...", "done": "..."}]}`

// stepOutcome is what one step came to.
type stepOutcome struct {
	step   PlanStep
	ok     bool
	report string
}

// planAndExecute plans, runs each step as a ReAct sub-run over the same
// workspace and changeset, and replans (at most MaxReplans times) when a step
// fails. The answer summarises every step and its outcome.
func (a *Agent) planAndExecute(ctx context.Context, t Task) (Outcome, error) {
	maxReplans := t.MaxReplans
	if maxReplans <= 0 {
		maxReplans = DefaultMaxReplans
	}
	a.emit(Event{Kind: EventStart, Text: t.Prompt})
	var plan planAnswer
	if err := a.completeJSON(ctx, a.cfg.System+"\n\n"+plannerPrompt, "Task: "+t.Prompt, &plan); err != nil {
		return a.finish(Outcome{}, fmt.Errorf("planning failed: %w", err))
	}
	if len(plan.Steps) == 0 {
		return a.finish(Outcome{}, errors.New("the planner returned no steps"))
	}
	steps := clampSteps(plan.Steps)
	a.emit(Event{Kind: EventPlan, Text: formatPlan(steps, 0)})
	if t.ConfirmPlan != nil {
		run, err := t.ConfirmPlan(ctx, formatPlan(steps, 0))
		if err != nil {
			return a.finish(Outcome{}, err)
		}
		if !run {
			answer := "The plan was not run:\n\n" + formatPlan(steps, 0)
			recordExchange(t.History, t.Prompt, answer)
			return a.finish(Outcome{Answer: answer}, nil)
		}
	}

	var total Outcome
	var done []stepOutcome
	replans := 0
	for i := 0; i < len(steps); i++ {
		if err := ctx.Err(); err != nil {
			return a.finish(total, err)
		}
		scope := fmt.Sprintf("step %d/%d", len(done)+1, len(done)+len(steps)-i)
		sub := a.scoped(scope)
		var h History
		out, err := sub.Run(ctx, &h, stepPrompt(t.Prompt, steps, i, done))
		total.Iterations += out.Iterations
		total.Usage.Add(out.Usage)
		res := stepOutcome{step: steps[i], ok: err == nil, report: strings.TrimSpace(out.Answer)}
		if err != nil {
			if ctx.Err() != nil {
				return a.finish(total, ctx.Err())
			}
			res.report = err.Error()
		} else if failed, why := stepFailed(out.Answer); failed {
			res.ok, res.report = false, why
		} else {
			res.report = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(out.Answer), "STEP DONE"))
		}
		done = append(done, res)
		if res.ok {
			continue
		}
		if replans >= maxReplans {
			break
		}
		replans++
		var again planAnswer
		user := fmt.Sprintf("Task: %s\n\nPlan:\n%s\nWhat happened:\n%s\nStep %q failed: %s",
			t.Prompt, formatPlan(steps, 0), formatDone(done), res.step.Goal, res.report)
		if err := a.completeJSON(ctx, a.cfg.System+"\n\n"+replannerPrompt, user, &again); err != nil {
			return a.finish(total, fmt.Errorf("replanning failed: %w", err))
		}
		steps = append(steps[:i+1], clampSteps(again.Steps)...)
		a.emit(Event{Kind: EventPlan, Text: fmt.Sprintf("Replanned after step %d failed (%d of %d replans):\n%s", len(done), replans, maxReplans, formatPlan(steps[i+1:], len(done)))})
	}
	total.Answer = summarizePlan(done, len(steps)-len(done))
	recordExchange(t.History, t.Prompt, total.Answer)
	return a.finish(total, nil)
}

func clampSteps(s []PlanStep) []PlanStep {
	var out []PlanStep
	for _, st := range s {
		if strings.TrimSpace(st.Goal) != "" && len(out) < maxPlanSteps {
			out = append(out, st)
		}
	}
	return out
}

func formatPlan(steps []PlanStep, offset int) string {
	var b strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&b, "%d. %s", offset+i+1, s.Goal)
		if s.Done != "" {
			fmt.Fprintf(&b, " (done when: %s)", s.Done)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func formatDone(done []stepOutcome) string {
	var b strings.Builder
	for i, d := range done {
		status := "done"
		if !d.ok {
			status = "FAILED"
		}
		fmt.Fprintf(&b, "%d. %s — %s: %s\n", i+1, d.step.Goal, status, firstLine(d.report))
	}
	return b.String()
}

func stepPrompt(task string, steps []PlanStep, i int, done []stepOutcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Overall task: %s\n\nPlan:\n%s", task, formatPlan(steps, 0))
	if len(done) > 0 {
		fmt.Fprintf(&b, "\nFinished so far:\n%s", formatDone(done))
	}
	fmt.Fprintf(&b, "\nNow carry out this step only: %s\n", steps[i].Goal)
	if steps[i].Done != "" {
		fmt.Fprintf(&b, "It is done when: %s\n", steps[i].Done)
	}
	b.WriteString("Use the tools. End your final answer with the line STEP DONE when the step is done, or STEP FAILED: <why> when it cannot be done.")
	return b.String()
}

// stepFailed reads the step's own verdict.
func stepFailed(answer string) (bool, string) {
	i := strings.LastIndex(answer, "STEP FAILED")
	if i < 0 {
		return false, ""
	}
	why := strings.TrimSpace(strings.TrimPrefix(answer[i+len("STEP FAILED"):], ":"))
	if why == "" {
		why = "the step reported failure"
	}
	return true, why
}

func summarizePlan(done []stepOutcome, notRun int) string {
	var b strings.Builder
	failed := 0
	for _, d := range done {
		if !d.ok {
			failed++
		}
	}
	last := done[len(done)-1]
	if last.ok {
		fmt.Fprintf(&b, "The plan is done (%d steps", len(done))
		if failed > 0 {
			fmt.Fprintf(&b, ", %d failed and were replanned", failed)
		}
		b.WriteString(").\n\n")
	} else {
		fmt.Fprintf(&b, "The plan did not finish: step %d failed (%s)", len(done), firstLine(last.report))
		if notRun > 0 {
			fmt.Fprintf(&b, " and %d step(s) did not run", notRun)
		}
		b.WriteString(". The changes made so far are in the proposal.\n\n")
	}
	for i, d := range done {
		mark := "✓"
		if !d.ok {
			mark = "✗"
		}
		fmt.Fprintf(&b, "%d. %s %s\n   %s\n", i+1, mark, d.step.Goal, strings.ReplaceAll(strings.TrimSpace(d.report), "\n", "\n   "))
	}
	return b.String()
}
