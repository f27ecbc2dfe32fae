// Command dynamoemu serves minidyn, an in-memory DynamoDB emulator, over
// HTTP on a loopback address (127.0.0.1:8000 by default), for the DynamoDB
// store's multi-process tests and local runs. The SDK reaches it through
// the real wire path: JSON 1.0 requests dispatched on X-Amz-Target.
//
// minidyn has no TTL calls; the command answers UpdateTimeToLive and
// DescribeTimeToLive itself (it records the setting, and expires nothing).
// With -addr 127.0.0.1:0 it picks a free port and prints the address it
// listens on, as "listening on http://HOST:PORT", on standard output.
// Everything lives in memory and is gone when the process ends; with
// -exit-on-stdin-close it also ends when its standard input does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "host:port to listen on (keep it on loopback; port 0 picks a free one)")
	stdinExit := flag.Bool("exit-on-stdin-close", false, "stop when standard input reaches its end, so that a test that starts the emulator with a pipe never leaves it behind")
	flag.Parse()
	if err := run(*addr, *stdinExit); err != nil {
		slog.Error("dynamoemu", "err", err)
		os.Exit(1)
	}
}

func run(addr string, stdinExit bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if stdinExit {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	srv := &http.Server{Handler: newHandler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(os.Stdout, "listening on http://%s\n", ln.Addr()); err != nil {
		return err
	}
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
