package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// errorBody is the "error" member of every error response.
type errorBody struct {
	Code     fault.Code `json:"code"`
	Message  string     `json:"message"`
	Problems []Problem  `json:"problems,omitempty"`
}

type errorEnvelope struct {
	Error errorBody `json:"error"`
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client may have gone; nothing to do
}

func writeError(w http.ResponseWriter, status int, e errorBody) {
	writeJSON(w, status, errorEnvelope{Error: e})
}

// fail answers with the status that matches err's fault code.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.failWith(w, r, err, nil)
}

// failWith is fail with a list of problems in the body.
func (s *Server) failWith(w http.ResponseWriter, r *http.Request, err error, probs []Problem) {
	code := fault.CodeOf(err)
	msg := errMessage(err)
	status := statusOf(err)
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "http api request failed",
			"method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, status, errorBody{Code: code, Message: msg, Problems: probs})
}

// statusOf maps an error's fault code (or, failing that, its class) to an
// HTTP status.
func statusOf(err error) int {
	switch fault.CodeOf(err) {
	case fault.CodeNotFound:
		return http.StatusNotFound
	case fault.CodeInvalidConfig, fault.CodeInvalidPayload, fault.CodeSchemaViolation, fault.CodeInvalidTopic:
		return http.StatusBadRequest
	case fault.CodeNotAuthorized:
		return http.StatusUnauthorized
	case fault.CodeForbidden:
		return http.StatusForbidden
	case fault.CodeAlreadyExists, fault.CodeStaleFencingToken, fault.CodeDuplicateRecord:
		return http.StatusConflict
	case fault.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case fault.CodeNotSupported:
		return http.StatusNotImplemented
	case fault.CodeThrottled, fault.CodeTenantQuotaExceeded:
		return http.StatusTooManyRequests
	case fault.CodeTimeout:
		return http.StatusGatewayTimeout
	case fault.CodeUnavailable, fault.CodeConnectionLost, fault.CodeBrokerBusy:
		return http.StatusServiceUnavailable
	}
	switch fault.ClassOf(err) {
	case fault.ClassPermanent:
		return http.StatusUnprocessableEntity
	case fault.ClassRejected:
		return http.StatusBadRequest
	default:
		return http.StatusInternalServerError
	}
}

// badRequest answers 400 with an INVALID_PAYLOAD code.
func badRequest(w http.ResponseWriter, msg string) {
	writeError(w, http.StatusBadRequest, errorBody{Code: fault.CodeInvalidPayload, Message: msg})
}

// errMessage is err's text without the leading code when err is a
// BridgeError, since the code has its own field.
func errMessage(err error) string {
	be, ok := fault.As(err)
	if !ok {
		return err.Error()
	}
	msg := be.Message()
	if c := errors.Unwrap(be); c != nil {
		msg += ": " + c.Error()
	}
	return msg
}
