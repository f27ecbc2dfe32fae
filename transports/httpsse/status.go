package httpsse

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// StatusFor returns the HTTP status the ingress answers for a settlement;
// accepted is the configured status of a success (200 or 202, see
// ReceiverConfig.AcceptedStatus).
//
//	acked, no error                      accepted (200 / 202)
//	acked, MESSAGE_FILTERED              accepted: the route chose to discard it
//	acked, INVALID_PAYLOAD, INVALID_TOPIC 400
//	acked, PAYLOAD_TOO_LARGE             413
//	acked, SCHEMA_VIOLATION              422
//	acked, MESSAGE_EXPIRED               422
//	acked, NOT_AUTHORIZED, FORBIDDEN     403
//	acked, NOT_FOUND                     404
//	acked, ALREADY_EXISTS, DUPLICATE_RECORD 409
//	acked, POISON_MESSAGE or other       422 (other rejected codes: 400)
//	retried                              503 with Retry-After
//	unsettled                            503 with Retry-After
//
// Every acked outcome with an error is terminal (the message was
// dead-lettered or dropped), so it maps to a 4xx that clients do not
// retry; only outcomes the caller should retry are 503.
func StatusFor(st ports.Settlement, accepted int) int {
	switch st.Outcome {
	case ports.SettledAcked:
		if st.Err == nil || errors.Is(st.Err, fault.ErrMessageFiltered) {
			return accepted
		}
		return terminalStatus(st.Err)
	default:
		return http.StatusServiceUnavailable
	}
}

func terminalStatus(err error) int {
	switch fault.CodeOf(err) {
	case fault.CodeInvalidPayload, fault.CodeInvalidTopic:
		return http.StatusBadRequest
	case fault.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case fault.CodeSchemaViolation, fault.CodeMessageExpired, fault.CodePoisonMessage:
		return http.StatusUnprocessableEntity
	case fault.CodeNotAuthorized, fault.CodeForbidden:
		return http.StatusForbidden
	case fault.CodeNotFound:
		return http.StatusNotFound
	case fault.CodeAlreadyExists, fault.CodeDuplicateRecord:
		return http.StatusConflict
	}
	if fault.ClassOf(err) == fault.ClassRejected {
		return http.StatusBadRequest
	}
	return http.StatusUnprocessableEntity
}

// Response is the JSON body of every ingress answer except 204.
type Response struct {
	// Status is accepted, filtered, rejected, expired, failed, retry,
	// unsettled or error (a request the ingress refused itself).
	Status string `json:"status"`
	// ID is the message ID, once the body was parsed.
	ID string `json:"id,omitempty"`
	// Error explains a failure.
	Error *ResponseError `json:"error,omitempty"`
}

// ResponseError is the error part of a Response.
type ResponseError struct {
	Code    string `json:"code"`
	Class   string `json:"class,omitempty"`
	Message string `json:"message"`
	// Field and Offset locate a problem in a malformed body.
	Field  string `json:"field,omitempty"`
	Offset *int64 `json:"offset,omitempty"`
}

// settlementResponse describes st for the caller. Details of rejections
// and expiry concern the caller's own message and are always given;
// details of other failures describe the bridge's destinations and are
// given only when expose is set.
func settlementResponse(st ports.Settlement, id string, expose bool) Response {
	resp := Response{ID: id}
	switch st.Outcome {
	case ports.SettledAcked:
		switch {
		case st.Err == nil:
			resp.Status = "accepted"
			return resp
		case errors.Is(st.Err, fault.ErrMessageFiltered):
			resp.Status = "filtered"
			return resp
		}
		switch fault.ClassOf(st.Err) {
		case fault.ClassRejected:
			resp.Status = "rejected"
		case fault.ClassExpired:
			resp.Status = "expired"
		default:
			resp.Status = "failed"
		}
	case ports.SettledRetried:
		resp.Status = "retry"
	default:
		resp.Status = "unsettled"
		resp.Error = &ResponseError{Code: string(fault.CodeUnavailable), Class: fault.ClassTransient.String(),
			Message: "the bridge stopped working on the message before it was delivered; send it again"}
		return resp
	}
	cl := fault.ClassOf(st.Err)
	re := &ResponseError{Code: string(fault.CodeOf(st.Err)), Class: cl.String()}
	switch {
	case st.Err == nil:
		re.Code, re.Class = string(fault.CodeUnavailable), fault.ClassTransient.String()
		re.Message = "the message could not be delivered yet; send it again later"
	case expose || cl == fault.ClassRejected || cl == fault.ClassExpired:
		re.Message = st.Err.Error()
	case st.Outcome == ports.SettledRetried:
		re.Message = "the message could not be delivered yet; send it again later"
	default:
		re.Message = "the message could not be delivered and will not be retried"
	}
	resp.Error = re
	return resp
}

// retryAfterSeconds renders d as a Retry-After value: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	s := max(int64((d+time.Second-1)/time.Second), 1)
	return strconv.FormatInt(s, 10)
}

// Header values shared by every answer; net/http only reads them.
var (
	jsonContentType = []string{"application/json"}
	noSniff         = []string{"nosniff"}
)

// writeJSON answers with status and body (none for 204).
func writeJSON(w http.ResponseWriter, status int, body Response) {
	h := w.Header()
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = noSniff
	var b []byte
	if body.Error == nil {
		b = make([]byte, 0, 32+len(body.Status)+len(body.ID))
		// The common answers, without reflection.
		b = append(b, `{"status":`...)
		b = appendJSONString(b, body.Status)
		if body.ID != "" {
			b = append(b, `,"id":`...)
			b = appendJSONString(b, body.ID)
		}
		b = append(b, "}\n"...)
	} else if m, err := json.Marshal(body); err == nil {
		b = append(m, '\n')
	} else {
		b = []byte(`{"status":"error"}` + "\n")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 is written
// as U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// writeRefusal answers a request the ingress refused before handing it to
// a route.
func writeRefusal(w http.ResponseWriter, status int, code fault.Code, msg string) {
	writeJSON(w, status, Response{Status: "error", Error: &ResponseError{Code: string(code), Message: msg}})
}
