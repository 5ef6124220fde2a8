// Package agentrun is a run's life as every wire starts it — the CLI's
// ask, the language server's agent.ask and ACP's session/prompt: the model
// found (once a process or connection) and its client built (Models), the view of the workspace with its
// commands' sandbox and policy (OpenView, Policy), the agent with the
// mode's tools, the MCP servers' tools and the notes (Do), and the end:
// the answer, the tokens, the staged proposal, and what the conversation's
// next turn must be told. A wire translates its protocol into a Request
// and the Outcome back, and holds no step of the run itself, so a mode or
// a cancel means the same on every wire.
//
// How a run ends is decided here once (Ending, Outcome.Offers,
// Outcome.StopNote), and agentruntest holds the contract as a table of
// scenarios each wire's tests play through its own protocol.
//
// It knows no protocol: the client's buffers come as a tools.Overlay, its
// approvals as a tools.Approver, the plan's confirmation as a function.
package agentrun
