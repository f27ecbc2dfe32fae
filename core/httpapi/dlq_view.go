package httpapi

import (
	"encoding/base64"
	"time"
	"unicode/utf8"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// dlqEntryView is a DLQ entry as the admin API shows it. Lists leave the
// payload out (PayloadSize says how large it is); show includes it.
type dlqEntryView struct {
	ID             string       `json:"id"`
	Route          string       `json:"route"`
	Binding        string       `json:"binding,omitempty"`
	Address        string       `json:"address,omitempty"`
	Category       string       `json:"category"`
	Error          dlqErrorView `json:"error"`
	Attempts       int          `json:"attempts"`
	FirstFailureAt time.Time    `json:"first_failure_at"`
	LastFailureAt  time.Time    `json:"last_failure_at"`
	Message        *messageView `json:"message,omitempty"`
}

type dlqErrorView struct {
	Class   string `json:"class"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

type messageView struct {
	ID          string         `json:"id"`
	Subject     string         `json:"subject"`
	Headers     map[string]any `json:"headers,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
	ExpiresAt   *time.Time     `json:"expires_at,omitempty"`
	PayloadSize int            `json:"payload_size"`
	// Payload is the payload as text when it is valid UTF-8, otherwise
	// base64; PayloadEncoding says which ("utf-8" or "base64").
	Payload         *string `json:"payload,omitempty"`
	PayloadEncoding string  `json:"payload_encoding,omitempty"`
}

func viewEntry(e ports.DLQEntry, withPayload bool) dlqEntryView {
	v := dlqEntryView{
		ID: e.ID, Route: e.RouteID, Binding: e.BindingID, Address: e.Address,
		Category: string(e.Category),
		Error:    dlqErrorView{Class: e.ErrorClass, Code: e.ErrorCode, Message: e.ErrorMessage},
		Attempts: e.Attempts, FirstFailureAt: e.FirstFailureAt, LastFailureAt: e.LastFailureAt,
	}
	env := e.Envelope
	if env == nil {
		return v
	}
	m := &messageView{ID: env.ID, Subject: env.Subject, Headers: env.Headers,
		CreatedAt: env.CreatedAt, PayloadSize: env.PayloadLen()}
	if env.HasExpiry() {
		t := env.ExpiresAt
		m.ExpiresAt = &t
	}
	if withPayload {
		p := env.PayloadView()
		var s string
		if utf8.Valid(p) {
			s, m.PayloadEncoding = string(p), "utf-8"
		} else {
			s, m.PayloadEncoding = base64.StdEncoding.EncodeToString(p), "base64"
		}
		m.Payload = &s
	}
	v.Message = m
	return v
}
