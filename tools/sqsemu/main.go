// Command sqsemu serves the goaws SQS emulator on a loopback address only,
// for the integration suites of transports/sqs. goaws's own command binds
// every interface; this one binds the address it is given (127.0.0.1:4100
// by default) and writes the emulator's configuration itself, so that no
// file needs to be found on disk.
//
// The emulator speaks the SQS Query protocol only: clients must select it
// (transports/sqs does so with `protocol: query`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/Admiral-Piett/goaws/app/conf"
	"github.com/Admiral-Piett/goaws/app/gosqs"
	"github.com/Admiral-Piett/goaws/app/router"
)

// configTemplate is the emulator's environment: queue URLs name the
// address the emulator listens on, and messages become visible again after
// 30s unless the queue says otherwise.
const configTemplate = `Local:
  Host: %q
  Port: %q
  Region: ""
  AccountId: "100010001000"
  LogToFile: false
  EnableDuplicates: true
  QueueAttributeDefaults:
    VisibilityTimeout: 30
    ReceiveMessageWaitTimeSeconds: 0
    MaximumMessageSize: 262144
`

func main() {
	addr := flag.String("addr", "127.0.0.1:4100", "host:port to listen on (keep it on loopback)")
	flag.Parse()
	if err := run(*addr); err != nil {
		slog.Error("sqsemu", "err", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr: %w", err)
	}
	dir, err := os.MkdirTemp("", "sqsemu-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "goaws.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, configTemplate, host, port), 0o600); err != nil {
		return err
	}
	conf.LoadYamlConfig(cfg, "Local")

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	quit := make(chan struct{})
	defer close(quit)
	go gosqs.PeriodicTasks(time.Second, quit)

	srv := &http.Server{Handler: router.New(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	slog.Info("sqsemu listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
