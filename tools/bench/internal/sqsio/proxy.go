package sqsio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// CallProxy forwards HTTP requests to the emulator and counts them by
// SQS action (the Action field of a Query protocol request, or the
// X-Amz-Target header of a JSON one): what a forwarder would be billed
// for. It sits in front of the forwarder under test only.
type CallProxy struct {
	// Endpoint is the proxy's URL, to give the forwarder instead of the
	// emulator's.
	Endpoint string
	srv      *http.Server
	served   chan error
	mu       sync.Mutex
	calls    map[string]int64
}

// StartCallProxy listens on a free loopback port and forwards to target.
func StartCallProxy(target string) (*CallProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &CallProxy{Endpoint: "http://" + l.Addr().String(), calls: map[string]int64{}, served: make(chan error, 1)}
	rp := httputil.NewSingleHostReverseProxy(u)
	// Keep connections to the emulator for reuse, as many as a forwarder
	// opens to the proxy (Go's default keeps 2 and reopens the rest).
	rp.Transport = &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	// A forwarder stopping mid long-poll cancels its call: not worth a line.
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.count(Action(r.Header.Get("X-Amz-Target"), b))
		r.Body = io.NopCloser(bytes.NewReader(b))
		rp.ServeHTTP(w, r)
	})}
	go func() { p.served <- p.srv.Serve(l) }()
	return p, nil
}

// Action names the SQS action of a request from its X-Amz-Target header
// (JSON protocol, "AmazonSQS.SendMessageBatch") or its form body (Query
// protocol, "Action=SendMessageBatch&..."); "?" when neither says.
func Action(target string, body []byte) string {
	if _, a, ok := strings.Cut(target, "."); ok {
		return a
	}
	q, err := url.ParseQuery(string(body))
	if err != nil || q.Get("Action") == "" {
		return "?"
	}
	return q.Get("Action")
}

func (p *CallProxy) count(action string) {
	p.mu.Lock()
	p.calls[action]++
	p.mu.Unlock()
}

// Calls returns the counts so far, by action.
func (p *CallProxy) Calls() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.calls)
}

// Close stops the proxy.
func (p *CallProxy) Close() error {
	err := p.srv.Shutdown(context.Background())
	if serr := <-p.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// Diff is after − before, per action, without the zeros.
func Diff(before, after map[string]int64) map[string]int64 {
	d := map[string]int64{}
	for k, v := range after {
		if v -= before[k]; v != 0 {
			d[k] = v
		}
	}
	return d
}

// PerMessage formats calls per message, the actions in order, e.g.
// "ReceiveMessage 0.101, SendMessageBatch 0.100".
func PerMessage(calls map[string]int64, n int) string {
	if n <= 0 || len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	var total int64
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.3f", k, float64(calls[k])/float64(n))
		total += calls[k]
	}
	fmt.Fprintf(&b, "; all %.3f", float64(total)/float64(n))
	return b.String()
}
