package amqp091

import (
	"context"
	"fmt"
	"math"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// retryBucket is one wait queue of the delayed retry topology.
type retryBucket struct {
	delay time.Duration
	label string // routing key and queue name suffix
}

func retryBuckets(c RetryConfig) []retryBucket {
	out := make([]retryBucket, len(c.Delays))
	for i, d := range c.Delays {
		out[i] = retryBucket{delay: d, label: delayLabel(d)}
	}
	return out
}

// delayLabel writes d in its largest whole unit: 1s, 90s, 5m, 250ms.
func delayLabel(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	default:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
}

// nearestBucket picks the wait queue whose delay is nearest to after by
// ratio, so 3.2s goes to 4s rather than 2s.
func nearestBucket(bs []retryBucket, after time.Duration) retryBucket {
	best, bestDist := bs[0], math.Inf(1)
	a := math.Max(float64(after), float64(time.Millisecond))
	for _, b := range bs {
		if dist := math.Abs(math.Log(a / float64(b.delay))); dist < bestDist {
			best, bestDist = b, dist
		}
	}
	return best
}

// declareRetry declares the retry exchange and one wait queue per delay:
// each holds messages for its TTL and then dead-letters them, through the
// default exchange, back to the source queue.
func declareRetry(ch *amqp.Channel, c ReceiverConfig) error {
	ex := c.Retry.Exchange
	if err := ch.ExchangeDeclare(ex, "direct", true, false, false, false, nil); err != nil {
		return classify(err, "declare retry exchange "+ex)
	}
	for _, b := range retryBuckets(c.Retry) {
		q := QueueSpec{Name: c.Retry.QueuePrefix + b.label, MessageTTL: b.delay,
			DeadLetterExchange: "", DeadLetterRoutingKey: c.Queue}
		if c.Retry.QuorumWaitQueues {
			q.Type = "quorum"
		}
		args, _ := toTable(q.queueArguments())
		args["x-dead-letter-exchange"] = "" // the default exchange, which the shorthand omits
		if _, err := ch.QueueDeclare(q.Name, true, false, false, false, args); err != nil {
			return classify(err, "declare retry queue "+q.Name)
		}
		if err := ch.QueueBind(q.Name, b.label, ex, false, nil); err != nil {
			return classify(err, "bind retry queue "+q.Name)
		}
	}
	return nil
}

// republish publishes a copy of the original message (as received, not as
// the route changed it) to the retry exchange and waits for the broker's
// confirm. The copy counts one more retry and remembers the original
// routing key and exchange, signed (see retrySigner).
func (r *Receiver) republish(ctx context.Context, d *delivery, after time.Duration) error {
	c, err := r.retryPub.get(ctx, "amqp091 receiver "+r.o.name)
	if err != nil {
		return err
	}
	raw := &d.raw
	h := make(amqp.Table, len(raw.Headers)+4)
	for k, v := range raw.Headers {
		if k != "x-delivery-count" && !isRetryHeader(k) {
			h[k] = v
		}
	}
	id := raw.MessageId
	if id == "" {
		id = d.in.env.ID // keep the ID the route saw, so its attempt count holds
	}
	// The stamp carries what the receiver verified (or saw) on this copy,
	// never a producer's retry headers, and is signed so that the copy
	// coming back through the wait queue is believed.
	st := retryStamp{count: d.in.retries + 1, routingKey: d.in.routingKey, exchange: d.in.exchange}
	h[HeaderRetryCount] = int64(st.count)
	h[HeaderRetryRoutingKey] = st.routingKey
	h[HeaderRetryExchange] = st.exchange
	h[HeaderRetrySignature] = r.signer.sign(st, id, raw.Body)
	pub := amqp.Publishing{
		Headers: h, Body: raw.Body,
		ContentType: raw.ContentType, ContentEncoding: raw.ContentEncoding,
		DeliveryMode: raw.DeliveryMode, Priority: raw.Priority,
		CorrelationId: raw.CorrelationId, ReplyTo: raw.ReplyTo, Expiration: raw.Expiration,
		MessageId: id, Timestamp: raw.Timestamp, Type: raw.Type, AppId: raw.AppId,
		// user-id is left out: the broker refuses one that is not this connection's user.
	}
	b := nearestBucket(r.delays, after)
	p, err := c.publish(r.cfg.Retry.Exchange, b.label, true, &pub)
	if err != nil {
		return err
	}
	return p.wait(ctx)
}

// randomSuffix returns 8 random hex digits for generated names.
func randomSuffix() string { return messaging.NewID()[:8] }
