package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/routing"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// demo runs one direct_hold route: an in-memory source of sensor readings,
// a processor that stamps each message, and a rules resolver that sends hot
// readings to an alerts target and the rest to an archive target.
func demo(ctx context.Context, args []string, log *slog.Logger) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	rate := fs.Int("rate", 1000, "messages per second to generate (0 = as fast as possible)")
	duration := fs.Duration("duration", 0, "stop after this long (0 = until interrupted)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rate < 0 {
		return fmt.Errorf("-rate must not be negative, got %d", *rate)
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}

	source := memtransport.NewReceiver(memtransport.Options{NoHistory: true})
	alerts := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	archive := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	bindings := []routing.Binding{{ID: "alerts", Address: "sensors/alerts"}, {ID: "archive", Address: "sensors/archive"}}
	resolver, err := routing.NewResolver(routing.ResolverSpec{
		Type:           "rules",
		DefaultBinding: "archive",
		Rules: []routing.Rule{{
			BindingID: "alerts",
			Match:     []routing.Condition{{Field: "$.celsius", Operator: routing.OpGt, Value: 30}},
		}},
	}, bindings, routing.WithLogger(log))
	if err != nil {
		return err
	}
	rt, err := runtime.New([]runtime.Route{{
		ID:         "sensors",
		ReceiverID: "memory-source",
		Receiver:   source,
		Resolver:   resolver,
		Processors: []ports.Processor{stamp{}},
		Policy:     runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{
			{ID: "alerts", SenderID: "alerts", Sender: alerts, Address: "sensors/alerts"},
			{ID: "archive", SenderID: "archive", Sender: archive, Address: "sensors/archive"},
		},
	}}, runtime.Options{Logger: log})
	if err != nil {
		return err
	}

	log.Info("demo bridge running: memory source -> stamp -> rules(celsius > 30) -> alerts | archive; Ctrl-C stops it")
	var wg sync.WaitGroup
	wg.Go(func() { produce(ctx, source, *rate, log) })
	wg.Go(func() { report(ctx, source, alerts, archive, log) })
	err = rt.Run(ctx)
	wg.Wait()
	st := source.Stats()
	log.Info("demo stopped", "published", st.Published, "acked", st.Acked,
		"to_alerts", alerts.Count(), "to_archive", archive.Count(), "left_at_source", st.Pending())
	return err
}

// stamp marks every message it sees, to show a processor at work.
type stamp struct{}

func (stamp) Name() string { return "stamp" }

func (stamp) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	env.SetHeader("demo.stamped", "yes")
	return next(ctx, env)
}

// produce publishes sensor readings at rate per second (as fast as
// possible when rate is 0) until ctx ends. It paces by elapsed time rather
// than by one tick per message, which coarse timers cannot keep up with.
func produce(ctx context.Context, source *memtransport.Receiver, rate int, log *slog.Logger) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	begin := time.Now()
	for seq := 0; ; seq++ {
		for rate > 0 && seq >= int(time.Since(begin).Seconds()*float64(rate)) {
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
		body := fmt.Appendf(nil, `{"sensor":"s-%d","seq":%d,"celsius":%.1f}`, seq%8, seq, 15+rand.Float64()*20)
		if err := source.Publish(ctx, messaging.NewEnvelopeFromImmutablePayload("sensors.reading", body)); err != nil {
			if ctx.Err() == nil {
				log.Error("publish failed", "err", err)
			}
			return
		}
	}
}

// report logs the message counts once a second.
func report(ctx context.Context, source *memtransport.Receiver, alerts, archive *memtransport.Sender, log *slog.Logger) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var last int
	for {
		select {
		case <-t.C:
			st := source.Stats()
			log.Info("progress", "acked_per_s", st.Acked-last, "acked", st.Acked,
				"to_alerts", alerts.Count(), "to_archive", archive.Count(), "in_flight", st.Unsettled)
			last = st.Acked
		case <-ctx.Done():
			return
		}
	}
}

// cmdDemo runs demo and turns its outcome into an exit code.
func cmdDemo(ctx context.Context, args []string, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := demo(ctx, args, log); err != nil {
		log.Error("demo failed", "err", err)
		return exitFailed
	}
	return exitOK
}
