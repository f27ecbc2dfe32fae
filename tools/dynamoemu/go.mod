module github.com/gobridge-oss/gobridge/tools/dynamoemu

go 1.26.0
