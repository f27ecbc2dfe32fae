module github.com/gobridge-oss/gobridge/tools

go 1.26
