package httpsse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Header names the ingress reads.
const (
	// HeaderIdempotencyKey is the request header whose value is carried in
	// the envelope header IdempotencyKeyHeader and, when the body names no
	// id, becomes the message ID.
	HeaderIdempotencyKey = "Idempotency-Key"
	// IdempotencyKeyHeader is the envelope header that carries the
	// request's Idempotency-Key. It is an ordinary header, not
	// x-bridge.idempotency-key, because routes remove x-bridge.* headers
	// from untrusted sources and an HTTP caller is one.
	IdempotencyKeyHeader = "idempotency-key"
	// SubjectHeader is the request header that supplies the subject of a
	// raw body when the path has no {subject}. It is the project's
	// cross-transport subject carrier, messaging.SubjectCarrier.
	SubjectHeader = messaging.SubjectCarrier
	// ContentTypeHeader is the envelope header that keeps a raw body's
	// Content-Type.
	ContentTypeHeader = "content-type"
)

// mux routes the configured paths to the ingress handler of one Run.
func (r *Receiver) mux(rs *runState) *http.ServeMux {
	mux := http.NewServeMux()
	h := &ingress{r: r, rs: rs}
	for _, p := range r.cfg.Paths {
		mux.Handle("POST "+p, h)
		mux.HandleFunc("OPTIONS "+p, r.preflight)
	}
	if r.cfg.HealthPath != "-" {
		mux.HandleFunc("GET "+r.cfg.HealthPath, func(w http.ResponseWriter, _ *http.Request) {
			if rs.ctx.Err() != nil {
				writeJSON(w, http.StatusServiceUnavailable, Response{Status: "stopping"})
				return
			}
			writeJSON(w, http.StatusOK, Response{Status: "ok"})
		})
	}
	return mux
}

// ingress handles the POSTs of one Run.
type ingress struct {
	r  *Receiver
	rs *runState
}

// statusCallerGone stands for "no answer": the caller went away first.
const statusCallerGone = 0

// ServeHTTP takes one request from authentication to the answer.
func (h *ingress) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if status := h.serve(w, req); status != statusCallerGone {
		h.r.m.answered(status)
	}
}

func (h *ingress) serve(w http.ResponseWriter, req *http.Request) int {
	if h.rs.ctx.Err() != nil {
		return refuse(w, http.StatusServiceUnavailable, fault.CodeUnavailable, "the bridge is shutting down; send it again")
	}
	if msg, ok := h.r.admitBrowser(w, req); !ok {
		return refuse(w, http.StatusForbidden, fault.CodeForbidden, msg)
	}
	if h.r.keys.enabled() {
		token, presented := bearerToken(req)
		if !presented || !h.r.keys.allows(token) {
			challenge(w, presented)
			return refuse(w, http.StatusUnauthorized, fault.CodeNotAuthorized, "missing or invalid bearer key")
		}
	}
	if msg, ok := h.contentTypeOK(req.Header.Get("Content-Type")); !ok {
		return refuse(w, http.StatusUnsupportedMediaType, fault.CodeInvalidPayload, msg)
	}
	buf := new(bytes.Buffer)
	if h.r.cfg.Body == BodyEnvelope {
		// The parser copies what it keeps, so the buffer can be reused;
		// a raw body becomes the payload itself and cannot.
		buf = bodyPool.Get().(*bytes.Buffer)
		defer releaseBody(buf)
	}
	body, status, err := h.readBody(w, req, buf)
	if err != nil {
		return refuse(w, status, fault.CodeInvalidPayload, err.Error())
	}
	env, err := h.envelope(req, body)
	if err != nil {
		resp := Response{Status: "error", Error: &ResponseError{Code: string(fault.CodeInvalidPayload), Message: err.Error()}}
		var be *BodyError
		if errors.As(err, &be) {
			resp.Error.Field = be.Field
			if be.Offset >= 0 {
				off := be.Offset
				resp.Error.Offset = &off
			}
		}
		writeJSON(w, http.StatusBadRequest, resp)
		return http.StatusBadRequest
	}
	return h.deliver(w, req, env)
}

// deliver hands the message to the route and answers with its outcome.
func (h *ingress) deliver(w http.ResponseWriter, req *http.Request, env *messaging.Envelope) int {
	cfg := &h.r.cfg
	// dctx ends when the caller goes away, the hold timeout passes or
	// shutdown stops waiting (request contexts derive from the run's hard
	// stop context): its end abandons the delivery and ends the hand-over.
	dctx, abandon := context.WithCancel(req.Context())
	defer abandon()
	d := newDelivery(env, dctx)
	timer := time.AfterFunc(cfg.HoldTimeout, func() {
		abandon()
		d.wake()
	})
	defer timer.Stop()

	if err := h.rs.emitDelivery(dctx, d); err != nil {
		h.r.m.refused.Add(1)
		w.Header().Set("Retry-After", "1")
		return refuse(w, http.StatusServiceUnavailable, fault.CodeUnavailable,
			"the route did not take the message (it is stopping or busy); send it again")
	}
	st, ok := d.outcome(req.Context().Done(), h.rs.stopped, timer, h.r.grace)
	if !ok || dctx.Err() != nil {
		h.r.m.abandoned.Add(1)
	}
	if !ok {
		return statusCallerGone // nothing is written
	}
	status := StatusFor(st, cfg.AcceptedStatus)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfterSeconds(d.delay()))
	}
	writeJSON(w, status, settlementResponse(st, env.ID, cfg.ExposeErrors))
	return status
}

func refuse(w http.ResponseWriter, status int, code fault.Code, msg string) int {
	writeRefusal(w, status, code, msg)
	return status
}

// contentTypeOK checks the request's Content-Type against the configured
// list; an empty list accepts anything, a missing header included.
func (h *ingress) contentTypeOK(ct string) (string, bool) {
	allowed := h.r.cfg.ContentTypes
	if len(allowed) == 0 {
		return "", true
	}
	if len(allowed) == 1 && ct == allowed[0] {
		return "", true // the usual case, without parsing
	}
	want := "send Content-Type: " + strings.Join(allowed, " or ")
	if ct == "" {
		return "missing Content-Type; " + want, false
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Sprintf("malformed Content-Type %q; %s", ct, want), false
	}
	for _, a := range allowed {
		a = strings.ToLower(a)
		if a == mt || (strings.HasSuffix(a, "/*") && strings.HasPrefix(mt, a[:len(a)-1])) {
			return "", true
		}
	}
	return fmt.Sprintf("Content-Type %s is not accepted; %s", mt, want), false
}

// bodyPool recycles the read buffers of envelope bodies.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// releaseBody returns buf to the pool unless it grew large.
func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= 64<<10 {
		buf.Reset()
		bodyPool.Put(buf)
	}
}

// readBody reads the whole body, within MaxBodyBytes, into buf.
func (h *ingress) readBody(w http.ResponseWriter, req *http.Request, buf *bytes.Buffer) ([]byte, int, error) {
	limit := h.r.cfg.MaxBodyBytes
	if req.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge,
			fmt.Errorf("the body has %d bytes; the limit is %d", req.ContentLength, limit)
	}
	if req.ContentLength > 0 {
		buf.Grow(int(req.ContentLength) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the body exceeds the limit of %d bytes", limit)
	case err != nil:
		return nil, http.StatusBadRequest, fmt.Errorf("could not read the body: %v", err)
	}
	return buf.Bytes(), 0, nil
}

// envelope builds the message from the body, the path and the headers.
func (h *ingress) envelope(req *http.Request, body []byte) (*messaging.Envelope, error) {
	var (
		env   *messaging.Envelope
		hasID bool
	)
	if h.r.cfg.Body == BodyRaw {
		// The buffer belongs to this request alone and is never written
		// again, so the envelope may adopt it.
		env = messaging.NewEnvelopeFromImmutablePayload("", body)
		if ct := req.Header.Get("Content-Type"); ct != "" {
			env.Headers[ContentTypeHeader] = ct
		}
	} else {
		var err error
		if env, hasID, err = parseBody(body); err != nil {
			return nil, err
		}
	}
	if env.Subject == "" {
		env.Subject = req.Header.Get(SubjectHeader)
	}
	if env.Subject == "" {
		env.Subject = req.PathValue("subject")
	}
	if env.Subject == "" {
		return nil, &BodyError{Field: "subject", Offset: -1, Msg: h.subjectHint()}
	}
	if len(env.Subject) > MaxSubjectLen {
		return nil, &BodyError{Field: "subject", Offset: -1, Msg: fmt.Sprintf("longer than %d bytes", MaxSubjectLen)}
	}
	if key := req.Header.Get(HeaderIdempotencyKey); key != "" {
		if err := checkID(key); err != nil {
			return nil, &BodyError{Field: HeaderIdempotencyKey + " header", Offset: -1, Msg: err.Error()}
		}
		if _, set := env.Headers[IdempotencyKeyHeader]; !set {
			env.Headers[IdempotencyKeyHeader] = key
		}
		if !hasID {
			env.ID = key
		}
	}
	for _, name := range h.r.forward {
		if vs := req.Header.Values(name); len(vs) > 0 {
			setIfAbsent(env, strings.ToLower(name), strings.Join(vs, ", "))
		}
	}
	if p := h.r.cfg.HeaderPrefix; p != "" {
		for name, vs := range req.Header {
			if len(name) > len(p) && strings.EqualFold(name[:len(p)], p) {
				setIfAbsent(env, strings.ToLower(name[len(p):]), strings.Join(vs, ", "))
			}
		}
	}
	return env, nil
}

// setIfAbsent sets an envelope header unless the body already set it.
func setIfAbsent(env *messaging.Envelope, key, value string) {
	if _, set := env.Headers[key]; !set {
		env.Headers[key] = value
	}
}

func (h *ingress) subjectHint() string {
	if h.r.cfg.Body == BodyRaw {
		return "missing: post to a path ending in the subject or send the " + SubjectHeader + " header"
	}
	return `missing: set the "subject" field of the JSON body`
}
