// Package dynamodb is a gobridge store (outbox, DLQ and lease) on Amazon
// DynamoDB, for bridges that run on more than one machine.
package dynamodb
