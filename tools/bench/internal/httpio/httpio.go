// Package httpio is the harness's HTTP side: a load generator that POSTs
// stamped messages, each as a raw request body, from a number of
// concurrent clients, and retries a message until it is answered 2xx (an
// at-least-once producer: a 503 or a broken connection means the message
// was not taken).
package httpio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// Load describes what the load generator posts.
type Load struct {
	Run  uint64 // stamped into every payload
	N    int    // messages, sequence numbers 0..N-1
	Size int    // payload bytes
	Rate int    // messages per second; 0 posts as fast as the answers come
	// Concurrency is the number of requests in flight at once (default
	// 100), each on a keep-alive connection of its own.
	Concurrency int
}

// Result counts what the load generator saw.
type Result struct {
	Retries int64 // requests repeated after a non-2xx answer or a transport error
}

// Publish posts l.N stamped messages to url (Content-Type
// application/octet-stream) and returns once each was answered 2xx.
func Publish(ctx context.Context, url string, l Load) (Result, error) {
	conc := l.Concurrency
	if conc <= 0 {
		conc = 100
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: conc, MaxIdleConnsPerHost: conc, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	pace := bench.NewPacer(l.Rate)
	var next, retries atomic.Int64
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= l.N {
					return
				}
				if err := pace.Wait(ctx, i); err != nil {
					errs[w] = err
					return
				}
				body := bench.Encode(bench.Stamp{Run: l.Run, Seq: uint64(i), Sent: time.Now()}, l.Size)
				if err := postUntilTaken(ctx, client, url, body, &retries); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return Result{Retries: retries.Load()}, errors.Join(errs...)
}

// postUntilTaken posts body until it is answered 2xx or ctx ends, with a
// short pause between tries.
func postUntilTaken(ctx context.Context, client *http.Client, url string, body []byte, retries *atomic.Int64) error {
	for {
		err := post(ctx, client, url, body)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("httpio: %w (last: %v)", ctx.Err(), err)
		}
		retries.Add(1)
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

func post(ctx context.Context, client *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("httpio: %s", resp.Status)
	}
	return nil
}
