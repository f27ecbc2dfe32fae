package sbemu

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/go-amqp"
)

// TestIdleConnectionGetsHeartbeats checks that the emulator sends empty
// frames within the idle timeout a client announces (the SDK's is a
// minute), so an idle connection is not dropped.
func TestIdleConnectionGetsHeartbeats(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := amqp.Dial(ctx, "amqp://"+e.Addr(), &amqp.ConnOptions{SASLType: amqp.SASLTypeAnonymous(), IdleTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	<-time.After(3 * time.Second) // three idle timeouts without traffic
	if _, err := conn.NewSession(ctx, nil); err != nil {
		t.Fatalf("after idling: %v", err)
	}
}
