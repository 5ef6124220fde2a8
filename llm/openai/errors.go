package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agent-lsp/agent-lsp/llm"
)

// wrapError makes err an *llm.Error in the provider's own words: its
// message and code, and behind a router (OpenRouter) the upstream
// provider's name and reason, which the router's message ("Provider
// returned error") leaves out.
func (p *Provider) wrapError(ctx context.Context, err error) error {
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return p.streamError(ctx, streamErr)
	}
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return llm.TransportError(ctx, p.Name(), err)
	}
	msg := apiErr.Message
	if code := apiErr.JSON.Code.Raw(); apiErr.Code != "" && !isNumber(code) {
		msg = apiErr.Code + ": " + msg
	}
	if meta, ok := apiErr.JSON.ExtraFields["metadata"]; ok {
		msg = withUpstream(msg, json.RawMessage(meta.Raw()))
	}
	if msg == "" {
		msg = http.StatusText(apiErr.StatusCode)
	}
	e := &llm.Error{Kind: llm.KindForStatus(apiErr.StatusCode, msg), Provider: p.Name(), Status: apiErr.StatusCode, Message: msg, Err: err}
	if apiErr.Response != nil {
		e.RetryAfter = llm.ParseRetryAfter(apiErr.Response.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// streamError is an error event inside a 200 stream (OpenRouter sends the
// upstream's failure so once the stream has started).
func (p *Provider) streamError(ctx context.Context, streamErr *ssestream.StreamError) error {
	if err := p.bodyError(streamErr.Event.Data, streamErr); err != nil {
		return err
	}
	return llm.TransportError(ctx, p.Name(), streamErr)
}

// bodyError is the error object of a 200 body or event, classified by the
// code it carries as the same error with that status would be; nil when
// there is none.
func (p *Provider) bodyError(body []byte, cause error) error {
	var event struct {
		Error struct {
			Message  string          `json:"message"`
			Code     json.RawMessage `json:"code"`
			Metadata json.RawMessage `json:"metadata"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &event) != nil || event.Error.Message == "" {
		return nil
	}
	msg := withUpstream(event.Error.Message, event.Error.Metadata)
	status, _ := strconv.Atoi(string(event.Error.Code))
	kind := llm.KindForStatus(status, msg)
	if status == 0 {
		kind = llm.KindUnavailable // failed midway with no code: trying again may do
		if code := unquote(event.Error.Code); code != "" {
			msg = code + ": " + msg
		}
	}
	return &llm.Error{Kind: kind, Provider: p.Name(), Status: status, Message: msg, Err: cause}
}

// withUpstream adds to msg what a router's error metadata says: the
// upstream provider and its own words ({"provider_name", "raw"}, where raw
// may be the upstream's whole JSON error), or a moderation's reasons.
func withUpstream(msg string, metadata json.RawMessage) string {
	var meta struct {
		Provider string          `json:"provider_name"`
		Raw      json.RawMessage `json:"raw"`
		Reasons  []string        `json:"reasons"`
	}
	if json.Unmarshal(metadata, &meta) != nil {
		return msg
	}
	reason := rawReason(meta.Raw)
	if reason == "" && len(meta.Reasons) > 0 {
		reason = strings.Join(meta.Reasons, ", ")
	}
	switch {
	case meta.Provider != "" && reason != "":
		return msg + " (" + meta.Provider + ": " + reason + ")"
	case meta.Provider != "":
		return msg + " (" + meta.Provider + ")"
	case reason != "":
		return msg + " (" + reason + ")"
	}
	return msg
}

// maxReason caps an upstream's words: some send a whole HTML page.
const maxReason = 500

// rawReason is the upstream's message in raw: a string, or a JSON error
// (as a string or an object) whose message is taken.
func rawReason(raw json.RawMessage) string {
	text := unquote(raw)
	if text == "" && len(raw) > 0 && raw[0] == '{' {
		text = string(raw)
	}
	var upstream struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &upstream) == nil {
		if m := cmp.Or(upstream.Error.Message, upstream.Message); m != "" {
			text = m
		}
	}
	return capReason(text)
}

// capReason is text on one line, cut at maxReason.
func capReason(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > maxReason {
		text = strings.ToValidUTF8(text[:maxReason], "") + "…"
	}
	return text
}

func unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func isNumber(raw string) bool {
	_, err := strconv.Atoi(strings.TrimSpace(raw))
	return err == nil
}
