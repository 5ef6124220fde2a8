package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

const critiquePrompt = `You review the work of a coding agent. Given the task, its answer and its proposed changes
(a unified diff), decide whether the task is fully and correctly done.
Answer with one JSON object only: {"pass": true or false, "critique": "what is wrong or missing, briefly"}`

const reflectPrompt = `You are a coding agent reflecting on a failed attempt. In two or three sentences, write the lesson:
what went wrong, and what to do differently on the next attempt. Write only the lesson.`

// checkTimeout bounds one evaluator command.
const checkTimeout = 5 * time.Minute

// trial is one reflexion attempt.
type trial struct {
	answer   string
	changes  []tools.Change
	failures int    // failing checks (or 1 for a failed critique)
	why      string // what failed
}

// reflexion runs the task as trials. Each trial starts from the original
// workspace with the lessons of earlier failures in its prompt; the evaluator
// (the configured checks, run in the sandbox with the trial's changes, or an
// LLM critique) judges it; a failed trial's lesson goes into the episodic
// memory. It ends with the first passing trial, or the best one and a plain
// statement that the checks still fail.
func (a *Agent) reflexion(ctx context.Context, t Task) (Outcome, error) {
	maxTrials := t.MaxTrials
	if maxTrials <= 0 {
		maxTrials = DefaultMaxTrials
	}
	if t.Workspace == nil {
		return a.finish(Outcome{}, fmt.Errorf("reflexion needs the run's workspace"))
	}
	a.emit(Event{Kind: EventStart, Text: t.Prompt})
	original := t.Workspace.Changes()
	var total Outcome
	var lessons []string
	var best *trial
	for n := 1; n <= maxTrials; n++ {
		t.Workspace.Restore(original)
		prompt := t.Prompt
		if len(lessons) > 0 {
			prompt += "\n\nLessons from earlier attempts at this task (do not repeat their mistakes):\n- " + strings.Join(lessons, "\n- ")
		}
		sub := a.scoped(fmt.Sprintf("trial %d/%d", n, maxTrials))
		var h History
		out, err := sub.Run(ctx, &h, prompt)
		total.Iterations += out.Iterations
		total.Usage.Add(out.Usage)
		if ctx.Err() != nil {
			return a.finish(total, ctx.Err())
		}
		tr := &trial{answer: out.Answer, changes: t.Workspace.Changes()}
		if err != nil {
			tr.failures, tr.why = len(t.Checks)+1, err.Error()
		} else if err := a.evaluate(ctx, t, tr); err != nil {
			return a.finish(total, err)
		}
		if tr.failures == 0 {
			total.Answer = strings.TrimSpace(tr.answer)
			if len(t.Checks) > 0 {
				total.Answer += fmt.Sprintf("\n\nThe checks pass (trial %d of %d): %s", n, maxTrials, strings.Join(t.Checks, "; "))
			}
			recordExchange(t.History, t.Prompt, total.Answer)
			return a.finish(total, nil)
		}
		if best == nil || tr.failures < best.failures {
			best = tr
		}
		a.emit(Event{Kind: EventNotice, Scope: fmt.Sprintf("trial %d/%d", n, maxTrials), Text: "evaluation failed: " + firstLine(tr.why)})
		if n == maxTrials {
			break
		}
		lesson, err := a.complete(ctx, a.cfg.System+"\n\n"+reflectPrompt, fmt.Sprintf(
			"Task: %s\n\nYour answer:\n%s\n\nYour changes:\n%s\nWhat failed:\n%s", t.Prompt, tr.answer, tools.Proposal{Changes: tr.changes}.Diff(), tr.why), false)
		if err != nil {
			return a.finish(total, err)
		}
		lesson = strings.TrimSpace(lesson)
		lessons = append(lessons, lesson)
		a.emit(Event{Kind: EventNotice, Scope: fmt.Sprintf("trial %d/%d", n, maxTrials), Text: "[REFLECT] " + lesson})
	}
	t.Workspace.Restore(best.changes)
	total.Answer = fmt.Sprintf("After %d trials the checks still fail: %s\n\nThe best attempt is in the proposal:\n%s",
		maxTrials, firstLine(best.why), strings.TrimSpace(best.answer))
	recordExchange(t.History, t.Prompt, total.Answer)
	return a.finish(total, nil)
}

// evaluate judges a trial: the checks in the sandbox, or a critique.
func (a *Agent) evaluate(ctx context.Context, t Task, tr *trial) error {
	if len(t.Checks) == 0 {
		var verdict struct {
			Pass     bool   `json:"pass"`
			Critique string `json:"critique"`
		}
		user := fmt.Sprintf("Task: %s\n\nAnswer:\n%s\n\nProposed changes:\n%s", t.Prompt, tr.answer, tools.Proposal{Changes: tr.changes}.Diff())
		if err := a.completeJSON(ctx, critiquePrompt, user, &verdict); err != nil {
			return fmt.Errorf("critique failed: %w", err)
		}
		if !verdict.Pass {
			tr.failures, tr.why = 1, "critique: "+verdict.Critique
		}
		return nil
	}
	var why []string
	for _, check := range t.Checks {
		out, err := t.Workspace.RunCommand(ctx, check, checkTimeout, 20_000)
		if err != nil {
			return err
		}
		if out.ExitCode != 0 {
			tr.failures++
			why = append(why, fmt.Sprintf("`%s` failed:\n%s", check, out.Text()))
		}
	}
	tr.why = strings.Join(why, "\n")
	return nil
}
