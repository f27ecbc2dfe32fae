package telemetry

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Recorder is a Tracer that keeps every ended span in memory, for tests
// of code that traces. It propagates context in the W3C traceparent
// format with IDs drawn from a counter, and records every span (there is
// no sampling). The zero value is not usable; call NewRecorder.
type Recorder struct {
	mu    sync.Mutex
	next  uint64
	ended []RecordedSpan
}

// RecordedSpan is an ended span as a Recorder saw it.
type RecordedSpan struct {
	Name    string
	Kind    SpanKind
	TraceID string
	SpanID  string
	// ParentID is the span ID of the parent, "" for a root span.
	ParentID string
	// Remote says whether the parent came from headers (Extract).
	Remote bool
	// Links are "traceID/spanID" of the linked span contexts.
	Links  []string
	Attrs  map[string]any // string or int64 values
	Events []RecordedEvent
	Err    string // the error End received, "" on success
}

// RecordedEvent is one AddEvent call.
type RecordedEvent struct {
	Name  string
	Attrs map[string]any
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Spans returns the spans ended so far, in the order they ended.
func (r *Recorder) Spans() []RecordedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedSpan(nil), r.ended...)
}

// recCtx is the span context a Recorder keeps in a context.
type recCtx struct {
	traceID, spanID string
	remote          bool
}

type recKey struct{}

func (r *Recorder) id(width int) string {
	r.mu.Lock()
	r.next++
	n := r.next
	r.mu.Unlock()
	return fmt.Sprintf("%0*x", width, n)
}

// Start implements Tracer.
func (r *Recorder) Start(ctx context.Context, name string, o StartOptions) (context.Context, Span) {
	s := &recSpan{r: r, rec: RecordedSpan{Name: name, Kind: o.Kind, Attrs: map[string]any{}}}
	parent, ok := ctx.Value(recKey{}).(recCtx)
	if ok && !o.NewRoot {
		s.rec.TraceID, s.rec.ParentID, s.rec.Remote = parent.traceID, parent.spanID, parent.remote
	} else {
		s.rec.TraceID = r.id(32)
	}
	s.rec.SpanID = r.id(16)
	for _, l := range o.Links {
		if lc, ok := l.Value(recKey{}).(recCtx); ok {
			s.rec.Links = append(s.rec.Links, lc.traceID+"/"+lc.spanID)
		}
	}
	s.SetAttributes(o.Attrs...)
	return context.WithValue(ctx, recKey{}, recCtx{traceID: s.rec.TraceID, spanID: s.rec.SpanID}), s
}

// Extract implements Tracer for the headers Inject writes.
func (r *Recorder) Extract(ctx context.Context, h map[string]any) context.Context {
	v, _ := h["traceparent"].(string)
	parts := strings.Split(v, "-")
	if len(parts) != 4 || len(parts[1]) != 32 || len(parts[2]) != 16 {
		return ctx
	}
	return context.WithValue(ctx, recKey{}, recCtx{traceID: parts[1], spanID: parts[2], remote: true})
}

// Inject implements Tracer.
func (r *Recorder) Inject(ctx context.Context, h map[string]any) {
	if c, ok := ctx.Value(recKey{}).(recCtx); ok {
		h["traceparent"] = "00-" + c.traceID + "-" + c.spanID + "-01"
	}
}

type recSpan struct {
	r   *Recorder
	mu  sync.Mutex
	rec RecordedSpan
}

func (s *recSpan) End(err error) {
	s.mu.Lock()
	rec := s.rec
	s.mu.Unlock()
	if err != nil {
		rec.Err = err.Error()
	}
	s.r.mu.Lock()
	s.r.ended = append(s.r.ended, rec)
	s.r.mu.Unlock()
}

func (s *recSpan) SetAttributes(attrs ...Attr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range attrs {
		s.rec.Attrs[a.Key] = a.value()
	}
}

func (s *recSpan) AddEvent(name string, attrs ...Attr) {
	e := RecordedEvent{Name: name, Attrs: map[string]any{}}
	for _, a := range attrs {
		e.Attrs[a.Key] = a.value()
	}
	s.mu.Lock()
	s.rec.Events = append(s.rec.Events, e)
	s.mu.Unlock()
}

func (s *recSpan) Recording() bool { return true }

// TraceID implements TraceIDer.
func (s *recSpan) TraceID() string { return s.rec.TraceID }

func (a Attr) value() any {
	if a.IsInt {
		return a.Int
	}
	return a.Str
}
