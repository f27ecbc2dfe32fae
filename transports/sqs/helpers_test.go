package sqs

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/itest"
)

// emulatorEndpoint is where the goaws emulator listens
// (scripts/ensure-sqs.sh starts it); GOBRIDGE_SQS_ENDPOINT overrides it.
func emulatorEndpoint() string {
	if e := os.Getenv("GOBRIDGE_SQS_ENDPOINT"); e != "" {
		return e
	}
	return "http://127.0.0.1:4100"
}

// emulatorClient returns the client config for the emulator and skips t
// (or fails it under GOBRIDGE_REQUIRE_IT) when nothing listens there.
func emulatorClient(t *testing.T) ClientConfig {
	t.Helper()
	ep := emulatorEndpoint()
	u, err := url.Parse(ep)
	if err != nil {
		t.Fatalf("GOBRIDGE_SQS_ENDPOINT: %v", err)
	}
	c, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		itest.Unavailable(t, "no SQS emulator at %s (run scripts/ensure-sqs.sh): %v", ep, err)
	}
	c.Close()
	return ClientConfig{Region: "us-east-1", Endpoint: ep, Protocol: ProtocolQuery,
		AccessKeyID: "test", SecretAccessKey: "test"}
}

// testAPI builds an SDK client for cfg.
func testAPI(t *testing.T, cfg ClientConfig) *sqs.Client {
	t.Helper()
	c, err := NewClient(t.Context(), cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

var queueSeq atomic.Int64

// newQueue creates a fresh queue on the emulator and deletes it when t ends.
func newQueue(t *testing.T, api *sqs.Client, attrs map[string]string) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%d-%s", time.Now().UnixNano()%1e9, queueSeq.Add(1),
		strings.NewReplacer("/", "-", " ", "-", "#", "-", "(", "", ")", "", "=", "", ",", "").Replace(t.Name()))
	if len(name) > 80 {
		name = name[:80]
	}
	out, err := api.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateQueue %s: %v", name, err)
	}
	u := aws.ToString(out.QueueUrl)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = api.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	})
	return u
}

// drain reads queues directly with the SDK, deleting what it reads, for
// the conformance targets.
type drain struct {
	api *sqs.Client
	mu  sync.Mutex
	buf map[string][]types.Message
}

func newDrain(api *sqs.Client) *drain { return &drain{api: api, buf: map[string][]types.Message{}} }

// receive returns the next message at the queue URL.
func (d *drain) receive(ctx context.Context, queue string) (conformance.Received, error) {
	for {
		d.mu.Lock()
		if b := d.buf[queue]; len(b) > 0 {
			m := b[0]
			d.buf[queue] = b[1:]
			d.mu.Unlock()
			env := fromWire(m, time.Now())
			return conformance.Received{Subject: env.Subject, Payload: env.Payload(), Headers: env.Headers}, nil
		}
		d.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return conformance.Received{}, err
		}
		out, err := d.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queue),
			MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"}})
		if err != nil {
			if ctx.Err() != nil {
				return conformance.Received{}, ctx.Err()
			}
			return conformance.Received{}, err
		}
		for _, m := range out.Messages {
			_, _ = d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queue), ReceiptHandle: m.ReceiptHandle})
		}
		d.mu.Lock()
		d.buf[queue] = append(d.buf[queue], out.Messages...)
		d.mu.Unlock()
	}
}

// wireToMessage is what a receive returns for w.
func wireToMessage(w wireMessage) types.Message {
	return types.Message{Body: aws.String(w.body), MessageAttributes: w.attrs, MessageId: aws.String("mid"), ReceiptHandle: aws.String("rh")}
}
