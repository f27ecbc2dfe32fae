// Package httpsse is gobridge's HTTP transport: an HTTP ingress receiver,
// a Server-Sent Events (SSE) sender and a webhook sender.
//
// Receiver accepts POST requests and hands each one to a route as a
// delivery. The request is the delivery: the response waits until the
// route has settled it and its status code tells the caller what happened
// (see StatusFor). A caller that gets 503 retries; a caller that goes away
// leaves the delivery unsettled.
//
// SSESender serves channels over text/event-stream. The dispatch address
// names the channel; each channel has a bounded replay log, kept in the
// bridge's store when it has one (ports.StreamLog), whose sequence
// numbers are the event ids. A send is accepted once its event is in the
// log, so clients that reconnect with Last-Event-ID, even to a restarted
// bridge, get everything after it, preceded by a gobridge.gap event when
// some of it was trimmed. A client that cannot keep up is disconnected
// instead of slowing the others.
//
// WebhookSender POSTs each message (or, configured for batches, a JSON
// array of messages) to a URL, optionally signed with HMAC-SHA256, and
// classifies the answer: 2xx accepted, 408, 429 and 5xx transient
// (honouring Retry-After), any other status permanent.
//
// All three speak the same JSON envelope, described by MarshalEnvelope and
// ParseBody: {"id", "subject", "payload" or "payload_base64", "headers",
// "expires_at"}. The JSON field subject carries the logical subject;
// addresses (channels, URLs) never travel inside it.
package httpsse
