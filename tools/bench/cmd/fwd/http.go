package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// httpToAMQP is the plain net/http forwarder: it listens on o.listen, and
// each POST's body is published to o.exchange with routing key o.key on
// one channel in confirm mode; the request is answered 200 once RabbitMQ
// confirmed the publish, 503 when it did not (the client then retries).
// How many requests are in flight is the client's choice, as for the
// bridge's HTTP receiver.
func httpToAMQP(ctx context.Context, o options, ready func()) error {
	conn, err := amqp.Dial(o.amqpURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	tgt, err := openTarget(conn, o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		dc, err := tgt.publish(r.Context(), body, nil, "")
		if err == nil {
			err = waitConfirm(r.Context(), dc)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ready()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
