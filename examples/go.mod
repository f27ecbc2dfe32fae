module github.com/gobridge-oss/gobridge/examples

go 1.26.0
