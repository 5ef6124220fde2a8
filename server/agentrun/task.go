package agentrun

import "strings"

// What a run adds in front of the user's words in a task, each ending
// with ")\n\n": UserWords takes them off again for a replay.
const (
	askModeNote = "(Ask mode: answer from what you read; you cannot change files or run commands in this mode.)\n\n"
	asideNote   = "(Note from agent-lsp: "
)

// taskText is the task the model gets: the conversation's aside, the
// mode's note, then the prompt.
func taskText(mode Mode, aside, prompt string) string {
	if mode == ModeAsk {
		prompt = askModeNote + prompt
	}
	if aside != "" {
		prompt = asideNote + aside + ")\n\n" + prompt
	}
	return prompt
}

// UserWords strips what a run added to a task (taskText).
func UserWords(task string) string {
	if strings.HasPrefix(task, asideNote) {
		if i := strings.Index(task, ")\n\n"); i >= 0 {
			task = task[i+3:]
		}
	}
	return strings.TrimPrefix(task, askModeNote)
}

// What the next task is told of a turn that ended without its changes.
const (
	asideCancelled = "the previous turn was cancelled: the changes it staged were discarded, none were applied."
	asideFailed    = "the previous turn failed (%s): the changes it staged were discarded, none were applied."
	// AsideNotAccepted and the rest are for the wire that offered the
	// proposal, to say what the user made of it.
	AsideNotAccepted   = "the user did not accept the changes you proposed in the previous turn; none of them were applied, the files are as they were."
	AsideApplied       = "the user applied the changes you proposed in the previous turn."
	AsideAppliedBut    = "the user applied your proposed changes except %d sensitive file(s), which were left as they were."
	AsideNotWritten    = "the changes you proposed in the previous turn could not be written (%s); check the files before building on them."
	cancelledToolCalls = "(cancelled by the user before it finished)"
)
