package acp

import (
	"context"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// A session's config options (the client's mode, model and reasoning
// pickers): the mode (as session/set_mode), the model among those the
// configured provider serves (as `agent-lsp models` lists them), and how
// hard a reasoning model thinks. A change takes effect at the next turn;
// the client is told of every change, whichever way it came
// (config_option_update, and current_mode_update for the mode).
const (
	optionMode     sdk.SessionConfigId = "mode"
	optionModel    sdk.SessionConfigId = "model"
	optionThinking sdk.SessionConfigId = "thinking"
)

// modelDetected is the model value before the first turn has found one.
const modelDetected = "auto"

// thinkingDefault is the thinking value that leaves it to the model.
const thinkingDefault = "default"

// thinkingLevels are config.Settings.Thinking's values.
var thinkingLevels = []struct{ value, name string }{
	{thinkingDefault, "Model's default"}, {"minimal", "Minimal"}, {"low", "Low"}, {"medium", "Medium"}, {"high", "High"},
}

// listModelsWait bounds the model list's look-up when a session opens.
const listModelsWait = 2 * time.Second

// configOptions are s's options with their current values.
func (s *session) configOptions() []sdk.SessionConfigOption {
	s.mu.Lock()
	settings, mode, model, thinking, models := s.settings, s.mode, s.settings.Model, s.settings.Thinking, s.models
	s.mu.Unlock()
	var modeValues []sdk.SessionConfigSelectOption
	for _, m := range modes {
		modeValues = append(modeValues, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	if model == "" {
		model = modelDetected
	}
	var modelValues []sdk.SessionConfigSelectOption
	for _, m := range modelChoices(models, model) {
		name, about := m, sdk.Ptr("")
		if m == modelDetected {
			name, about = "Found at the first turn", nil
		} else {
			settings.Model = m
			*about = settings.Facts().String() // the catalog's window, price and images
		}
		modelValues = append(modelValues, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: name, Description: about})
	}
	settings.Model = model
	if thinking == "" {
		thinking = thinkingDefault
	}
	var thinkingValues []sdk.SessionConfigSelectOption
	for _, t := range thinkingLevels {
		if t.value == thinkingDefault || t.value == thinking || takesLevel(settings, t.value) {
			thinkingValues = append(thinkingValues, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(t.value), Name: t.name})
		}
	}
	return []sdk.SessionConfigOption{
		selectOption(optionMode, "Mode", "What the agent may do", sdk.SessionConfigOptionCategoryMode, string(mode), modeValues),
		selectOption(optionModel, "Model", "The model of the next turns", sdk.SessionConfigOptionCategoryModel, model, modelValues),
		selectOption(optionThinking, "Thinking", "How hard a reasoning model thinks (Gemini's thinking level, OpenAI's reasoning effort)", sdk.SessionConfigOptionCategoryThoughtLevel, thinking, thinkingValues),
	}
}

func selectOption(id sdk.SessionConfigId, name, description string, category sdk.SessionConfigOptionCategory, current string, values []sdk.SessionConfigSelectOption) sdk.SessionConfigOption {
	return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
		Id: id, Name: name, Description: sdk.Ptr(description), Category: sdk.Ptr(category), Type: "select",
		CurrentValue: sdk.SessionConfigValueId(current),
		Options:      sdk.SessionConfigSelectOptions{Ungrouped: sdk.Ptr(sdk.SessionConfigSelectOptionsUngrouped(values))},
	}}
}

// takesLevel says whether the model of s thinks at level: the catalog's
// reasoning levels where it knows the model, every level otherwise.
func takesLevel(s config.Settings, level string) bool {
	m, known := s.CatalogModel()
	return !known || slices.Contains(m.ReasoningLevels, level)
}

// modelChoices are the listed models with the current one among them.
func modelChoices(listed []string, current string) []string {
	if slices.Contains(listed, current) {
		return listed
	}
	return append([]string{current}, listed...)
}

// SetSessionConfigOption sets one of the session's options; an option or
// a value the session does not offer is an invalid-params error naming
// what it offers.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (resp sdk.SetSessionConfigOptionResponse, err error) {
	defer guard(a.log, "session/set_config_option", &err)
	if p.ValueId == nil {
		return resp, invalid("agent-lsp's config options are selects (mode, model, thinking): set one with a value id")
	}
	s, err := a.session(p.ValueId.SessionId)
	if err != nil {
		return resp, err
	}
	id, value := p.ValueId.ConfigId, string(p.ValueId.Value)
	var current sdk.SessionConfigOption
	for _, o := range s.configOptions() {
		if o.Select.Id == id {
			current = o
		}
	}
	if current.Select == nil {
		return resp, invalid("unknown config option " + quote(string(id)) + ": agent-lsp offers mode, model and thinking")
	}
	if !offers(current.Select, value) {
		return resp, invalid("config option " + string(id) + " has no value " + quote(value) + ": " + strings.Join(values(current.Select), ", "))
	}
	switch id {
	case optionMode:
		a.setMode(s, sdk.SessionModeId(value))
	case optionModel:
		s.setSettings(func(st *config.Settings) {
			if value != modelDetected {
				st.Model = value
			}
		})
		a.optionsChanged(s)
	case optionThinking:
		s.setSettings(func(st *config.Settings) { st.Thinking = strings.TrimPrefix(value, thinkingDefault) })
		a.optionsChanged(s)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

func invalid(why string) error { return sdk.NewInvalidParams(map[string]any{"error": why}) }

// quote shows a client's string in an error, escaped.
func quote(s string) string { return "'" + tools.Printable(s) + "'" }

func offers(o *sdk.SessionConfigOptionSelect, value string) bool {
	return slices.Contains(values(o), value)
}

func values(o *sdk.SessionConfigOptionSelect) []string {
	var out []string
	for _, v := range *o.Options.Ungrouped {
		out = append(out, string(v.Value))
	}
	return out
}

// setSettings changes the session's settings; the next turn reads them.
func (s *session) setSettings(change func(*config.Settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(&s.settings)
}

// setMode switches s's mode and tells the client, whichever way it changed.
func (a *Agent) setMode(s *session, id sdk.SessionModeId) {
	s.mu.Lock()
	s.mode = id
	s.mu.Unlock()
	a.update(s, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: id}})
	a.optionsChanged(s)
}

// optionsChanged tells the client s's options as they now are.
func (a *Agent) optionsChanged(s *session) {
	a.update(s, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}})
}

// findModels fills in s's model (the connection's Models) and the models its
// provider serves, listed once a connection per provider and server; a
// failure leaves the list at the current model, and the turn says why.
// The error is why no model is usable (a sign-in fixes those that match
// config.ErrSignIn); then nothing is listed.
func (a *Agent) findModels(ctx context.Context, s *session) error {
	ctx, cancel := context.WithTimeout(ctx, listModelsWait)
	defer cancel()
	settings, err := a.runModels.Find(ctx, s.currentSettings())
	if err == nil {
		err = settings.Validate()
	}
	if err != nil {
		return err
	}
	s.keepFound(settings)
	if a.opts.ListModels == nil {
		return nil
	}
	key := settings.Provider + "\x00" + settings.BaseURL
	a.mu.Lock()
	models, ok := a.models[key]
	a.mu.Unlock()
	if !ok {
		var err error
		if models, err = a.opts.ListModels(ctx, settings); err != nil {
			a.log.Info("acp: listing the models", "error", err)
			return nil
		}
		slices.Sort(models)
		a.mu.Lock()
		a.models[key] = models
		a.mu.Unlock()
	}
	s.mu.Lock()
	s.models = models
	s.mu.Unlock()
	return nil
}
