package sqs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// benchStub serves an endless source queue and accepts every send and
// delete, counting the calls. Each answer comes after the latency that
// GOBRIDGE_BENCH_SQS_LATENCY sets (none by default): SQS answers in
// milliseconds, the stub in microseconds.
func benchStub(b *testing.B) *stubSQS {
	var seq atomic.Int64
	okAll := func(req map[string]any) (int, any) {
		es := entries(req)
		ok := make([]map[string]any, len(es))
		for i, e := range es {
			ok[i] = map[string]any{"Id": e["Id"], "MessageId": "m"}
		}
		return 200, map[string]any{"Successful": ok}
	}
	var bufs sync.Pool // request bodies, read into reused buffers
	decode := func(r io.Reader) map[string]any {
		buf, _ := bufs.Get().(*bytes.Buffer)
		if buf == nil {
			buf = new(bytes.Buffer)
		}
		buf.Reset()
		_, _ = buf.ReadFrom(r)
		req := decodeBenchRequest(buf.Bytes())
		bufs.Put(buf)
		return req
	}
	s := &stubSQS{n: map[string]int{}, decode: decode, ops: map[string]stubOp{
		"ReceiveMessage": func(req map[string]any) (int, any) {
			want, _ := req["MaxNumberOfMessages"].(float64)
			msgs := make([]map[string]any, int(want))
			for i := range msgs {
				id := seq.Add(1)
				msgs[i] = map[string]any{"MessageId": fmt.Sprint("id", id), "ReceiptHandle": fmt.Sprint("rh", id), "Body": "payload-0123456789"}
			}
			return 200, map[string]any{"Messages": msgs}
		},
		"GetQueueAttributes": visibility30,
		"SendMessageBatch":   okAll,
		"DeleteMessageBatch": okAll,
	}}
	if v := os.Getenv("GOBRIDGE_BENCH_SQS_LATENCY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("GOBRIDGE_BENCH_SQS_LATENCY: %v", err)
		}
		s.latency = d
	}
	s.srv = newBenchServer(s)
	b.Cleanup(s.srv.Close)
	return s
}

// decodeBenchRequest reads only the request fields the benchmark stub
// answers from: SQS parses requests on its own machines, so the stub
// should charge the client's process as little as it can for the parts
// it ignores (message bodies and attributes). It still tokenises the
// whole body.
func decodeBenchRequest(body []byte) map[string]any {
	var req struct {
		MaxNumberOfMessages float64
		Entries             []struct{ Id string }
	}
	_ = json.Unmarshal(body, &req)
	es := make([]any, len(req.Entries))
	for i, e := range req.Entries {
		es[i] = map[string]any{"Id": e.Id}
	}
	return map[string]any{"MaxNumberOfMessages": req.MaxNumberOfMessages, "Entries": es}
}

// BenchmarkForwardTransport forwards b.N messages from one queue to
// another through this transport, the way the runtime's direct mode
// uses it: a pool of 100 long-lived workers (the route's max_in_flight)
// takes the deliveries; each sends the received envelope, then acks. emit
// waits for a free worker, as the runtime's does.
func BenchmarkForwardTransport(b *testing.B) {
	stub := benchStub(b)
	api := stub.client()
	r, err := NewReceiver(api, ReceiverConfig{Queue: stubQueue, WaitTime: time.Second}, WithMaxInFlight(100))
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSender(api, SenderConfig{Queue: stubQueue + "-out"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	var done atomic.Int64
	finished := make(chan struct{})
	work := make(chan ports.Delivery)
	var workers sync.WaitGroup
	for range 100 {
		workers.Go(func() {
			for d := range work {
				// The runtime sends the envelope it received (it copies
				// one only to add configured headers).
				if s.Send(ctx, ports.OutboundMessage{Envelope: d.Envelope()}) == nil && d.Ack(ctx) == nil {
					if done.Add(1) == int64(b.N) {
						close(finished)
					}
				}
			}
		})
	}
	b.ResetTimer()
	cpu0 := processCPU()
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = r.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
			select {
			case work <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	<-finished
	b.StopTimer()
	reportCPU(b, cpu0)
	cancel()
	<-runDone
	close(work)
	workers.Wait()
	b.ReportMetric(float64(stub.calls("SendMessageBatch"))/float64(b.N)*10, "sends/10msgs")
	b.ReportMetric(float64(stub.calls("DeleteMessageBatch"))/float64(b.N)*10, "deletes/10msgs")
	b.ReportMetric(float64(stub.calls("ReceiveMessage"))/float64(b.N)*10, "receives/10msgs")
	b.ReportMetric(float64(stub.conns.Load()), "conns")
}

// BenchmarkForwardPlainSDK is the reference: a loop with the SDK alone
// that receives 10, sends them in one batch and deletes them in one
// batch, with as many loops side by side as the transport has pollers.
func BenchmarkForwardPlainSDK(b *testing.B) {
	plainForward(b, func(m types.Message, id *string) types.SendMessageBatchRequestEntry {
		return types.SendMessageBatchRequestEntry{Id: id, MessageBody: m.Body}
	})
}

// BenchmarkForwardPlainSDKEnvelope is the same loop sending what the
// transport sends: the body and the gobridge.envelope attribute of a new
// envelope. Against it, the transport's cost is its own machinery
// (coalescing, in-flight slots, a goroutine per delivery), not the format.
func BenchmarkForwardPlainSDKEnvelope(b *testing.B) {
	plainForward(b, func(m types.Message, id *string) types.SendMessageBatchRequestEntry {
		w, err := toWire(messaging.NewEnvelope("fwd", []byte(aws.ToString(m.Body))), nil, false)
		if err != nil {
			b.Error(err)
		}
		return types.SendMessageBatchRequestEntry{Id: id, MessageBody: aws.String(w.body), MessageAttributes: w.attrs}
	})
}

// plainForward runs 10 plain SDK loops that forward b.N messages, each
// send entry made by entry.
func plainForward(b *testing.B, entry func(m types.Message, id *string) types.SendMessageBatchRequestEntry) {
	stub := benchStub(b)
	api := stub.client()
	ctx := b.Context()
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	cpu0 := processCPU()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for left.Load() > 0 {
				out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(stubQueue), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
				if err != nil {
					b.Error(err)
					return
				}
				send := &sqs.SendMessageBatchInput{QueueUrl: aws.String(stubQueue + "-out")}
				del := &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(stubQueue)}
				for i, m := range out.Messages {
					id := aws.String(fmt.Sprint(i))
					send.Entries = append(send.Entries, entry(m, id))
					del.Entries = append(del.Entries, types.DeleteMessageBatchRequestEntry{Id: id, ReceiptHandle: m.ReceiptHandle})
				}
				if _, err := api.SendMessageBatch(ctx, send); err != nil {
					b.Error(err)
					return
				}
				if _, err := api.DeleteMessageBatch(ctx, del); err != nil {
					b.Error(err)
					return
				}
				left.Add(-int64(len(out.Messages)))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	reportCPU(b, cpu0)
	b.ReportMetric(float64(stub.calls("SendMessageBatch"))/float64(b.N)*10, "sends/10msgs")
	b.ReportMetric(float64(stub.calls("DeleteMessageBatch"))/float64(b.N)*10, "deletes/10msgs")
	b.ReportMetric(float64(stub.calls("ReceiveMessage"))/float64(b.N)*10, "receives/10msgs")
	b.ReportMetric(float64(stub.conns.Load()), "conns")
}

// reportCPU reports the process's CPU time per message since cpu0, the
// stub's share included.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu0 > 0 {
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}
}
