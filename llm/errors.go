package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrorKind classifies a provider failure so that retry, fallback and the user
// message can be decided in one place, whatever the provider.
type ErrorKind int

const (
	KindOther ErrorKind = iota
	KindRateLimited
	KindUnauthorized
	KindBadRequest
	KindUnavailable
	KindContextTooLong
	KindTimeout
	// KindCircuitOpen: the provider failed too often lately and is not tried.
	KindCircuitOpen
)

func (k ErrorKind) String() string {
	switch k {
	case KindRateLimited:
		return "rate limited"
	case KindUnauthorized:
		return "unauthorized"
	case KindBadRequest:
		return "bad request"
	case KindUnavailable:
		return "unavailable"
	case KindContextTooLong:
		return "context too long"
	case KindTimeout:
		return "timeout"
	case KindCircuitOpen:
		return "circuit open"
	}
	return "error"
}

// Error is a classified provider failure. Match a kind with errors.Is against the
// sentinel values below, or errors.As to read Status and RetryAfter.
type Error struct {
	Kind     ErrorKind
	Provider string
	Status   int // HTTP status, 0 when none
	// RetryAfter is the server's requested wait (Retry-After or the provider's
	// equivalent); zero when it gave none.
	RetryAfter time.Duration
	Message    string
	Err        error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		// An SDK's message may name the URL it asked, credentials and all.
		b.WriteString(RedactURLs(e.Message))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches on Kind, so errors.Is(err, llm.ErrRateLimited) works for any provider.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Provider == "" && t.Kind == e.Kind
}

// Sentinels for errors.Is.
var (
	ErrRateLimited    = &Error{Kind: KindRateLimited}
	ErrUnauthorized   = &Error{Kind: KindUnauthorized}
	ErrBadRequest     = &Error{Kind: KindBadRequest}
	ErrUnavailable    = &Error{Kind: KindUnavailable}
	ErrContextTooLong = &Error{Kind: KindContextTooLong}
	ErrTimeout        = &Error{Kind: KindTimeout}
	ErrCircuitOpen    = &Error{Kind: KindCircuitOpen}
)

// Transient reports whether trying the same request again may succeed.
func Transient(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case KindRateLimited, KindUnavailable, KindTimeout:
		return true
	}
	return false
}

// KindForStatus maps an HTTP status and the provider's message to a kind.
func KindForStatus(status int, message string) ErrorKind {
	lower := strings.ToLower(message)
	if strings.Contains(lower, "context_length_exceeded") || strings.Contains(lower, "context length") ||
		strings.Contains(lower, "maximum context") || strings.Contains(lower, "too many tokens") ||
		strings.Contains(lower, "exceeds the maximum number of tokens") || strings.Contains(lower, "input token count") {
		return KindContextTooLong
	}
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindUnauthorized
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return KindTimeout
	case status >= 500:
		return KindUnavailable
	case status >= 400:
		return KindBadRequest
	}
	return KindOther
}

// ParseRetryAfter reads a Retry-After header value: seconds or an HTTP date.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// TransportError classifies a failure that carried no HTTP status: the caller's
// own cancellation passes through unchanged; timeouts, refused or reset
// connections and truncated bodies become transient *Error values.
func TransportError(ctx context.Context, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	kind := KindOther
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		kind = KindTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		kind = KindUnavailable
	case isSyntaxError(err):
		// A 200 with a body that is not the API's JSON: a proxy or a server glitch.
		kind = KindUnavailable
	}
	return &Error{Kind: kind, Provider: provider, Message: RedactURLs(err.Error()), Err: err}
}

func isSyntaxError(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ) || strings.Contains(err.Error(), "invalid character") ||
		strings.Contains(err.Error(), "unexpected end of JSON")
}
