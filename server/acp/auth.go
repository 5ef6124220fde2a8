package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Signing in: a session or a prompt with no usable model (config.ErrSignIn:
// no model, no key, nothing found) is answered auth_required, and the
// client offers the methods initialize listed: agent-lsp's terminal
// set-up (`agent-lsp setup`, which writes the user's config; the ACP
// Registry lists only agents that have one) where the client runs one, and
// the keys agent-lsp reads from its environment, which a client can set.
// Settings are read again at every session, so a finished set-up counts
// from the next session/new, on this connection too.

// The methods' ids.
const (
	authSetup  = "agent-lsp-setup"
	authOpenAI = "openai-api-key"
	authGemini = "gemini-api-key"
)

// setupArgs start the terminal set-up: the client runs the agent's own
// command with these instead of its usual ones.
var setupArgs = []string{"setup"}

// keyMethod is one key agent-lsp reads from its environment.
type keyMethod struct {
	id, name, description, link string
	vars                        []string // the first is asked for; the rest are read too
}

var keyMethods = []keyMethod{
	{authOpenAI, "OpenAI API key", "OPENAI_API_KEY in agent-lsp's environment: OpenAI's hosted models", "https://platform.openai.com/api-keys", []string{"OPENAI_API_KEY"}},
	{authGemini, "Gemini API key", "GEMINI_API_KEY in agent-lsp's environment: Google's Gemini models", "https://aistudio.google.com/apikey", []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
}

// authMethods are the sign-in methods offered to a client with caps: the
// terminal set-up only where the client runs one (auth.terminal, or Zed's
// and the ACP Registry's _meta "terminal-auth", which also gets the
// command line in the method's _meta), then the environment's keys.
func (a *Agent) authMethods(caps sdk.ClientCapabilities) []sdk.AuthMethod {
	methods := []sdk.AuthMethod{}
	legacy := caps.Meta["terminal-auth"] == true
	if caps.Auth.Terminal || legacy {
		setup := &sdk.AuthMethodTerminalInline{
			Id: authSetup, Name: "Sign in with agent-lsp setup", Args: setupArgs,
			Description: sdk.Ptr("Pick a provider (OpenAI, Gemini, a known provider, an OpenAI-compatible or local server), enter its key and pick a model; saved in your own agent-lsp config."),
		}
		if legacy {
			setup.Meta = map[string]any{"terminal-auth": map[string]any{"command": a.opts.Executable, "args": setupArgs, "label": "agent-lsp setup"}}
		}
		methods = append(methods, sdk.AuthMethod{Terminal: setup})
	}
	for _, k := range keyMethods {
		m := &sdk.AuthMethodEnvVarInline{Id: k.id, Name: k.name, Description: sdk.Ptr(k.description), Link: sdk.Ptr(k.link),
			Vars: []sdk.AuthEnvVar{{Name: k.vars[0], Label: sdk.Ptr(k.name), Secret: true}}}
		methods = append(methods, sdk.AuthMethod{EnvVar: m})
	}
	return methods
}

// Authenticate says whether the method's sign-in is done: the set-up's
// (the user's settings give a usable model), or a key's (its variable is
// set in agent-lsp's environment); auth_required with what is missing
// otherwise. A terminal method is run by the client, not here; clients
// that call authenticate after it get this check.
func (a *Agent) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (resp sdk.AuthenticateResponse, err error) {
	defer guard(a.log, "authenticate", &err)
	if p.MethodId == authSetup {
		return resp, a.signedIn(ctx)
	}
	for _, k := range keyMethods {
		if k.id != p.MethodId {
			continue
		}
		for _, v := range k.vars {
			if a.opts.Env(v) != "" {
				return resp, nil
			}
		}
		return resp, authRequired(config.SignInError(k.vars[0] + " is not set in agent-lsp's environment: set it where the client starts agent-lsp, or sign in with agent-lsp setup"))
	}
	return resp, invalid("unknown authentication method " + quote(p.MethodId) + ": agent-lsp offers " + authSetup + ", " + authOpenAI + " and " + authGemini)
}

// signedIn checks the user's own settings (no workspace's) for a usable
// model, as a session would find it.
func (a *Agent) signedIn(ctx context.Context) error {
	s, _, err := config.Load("", a.opts.Env)
	if err != nil {
		return requestError(err)
	}
	if s, err = a.runModels.Find(ctx, s); err == nil {
		err = s.Validate()
	}
	if err != nil {
		return requestError(err)
	}
	return nil
}

// authRequired is ACP's auth_required error, saying what is missing.
func authRequired(err error) *sdk.RequestError {
	re := sdk.NewAuthRequired(map[string]any{"error": tools.Displayable(err.Error())})
	re.Message = "Authentication required: " + tools.Displayable(err.Error())
	return re
}

// needsSignIn is err as the client must see it: auth_required where a
// sign-in fixes it.
func needsSignIn(err error) bool { return errors.Is(err, config.ErrSignIn) }
