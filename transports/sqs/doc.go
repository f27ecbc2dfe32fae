// Package sqs is the Amazon SQS transport of gobridge, built on
// aws-sdk-go-v2.
//
// A Sender sends with SendMessageBatch (up to 10 entries and 256 KiB per
// call) and reports one result per message. A Receiver long-polls a queue
// with several pollers, bounded by the route's in-flight limit, and hands
// out deliveries whose Ack deletes the message (coalesced into
// DeleteMessageBatch), whose Retry changes its visibility to the delay, and
// whose Extend pushes its visibility deadline out (coalesced into
// ChangeMessageVisibilityBatch, one call per message where a server lacks
// the batch call). Deliveries implement ports.Leased and
// ports.RedeliveryCounter.
//
// The envelope travels as the message body plus message attributes: the
// bridge's own metadata in one attribute (gobridge.envelope), headers in
// attributes of their own while SQS's limit of 10 allows, the rest inside
// the metadata attribute. See README.md.
package sqs
