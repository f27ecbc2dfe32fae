module github.com/gobridge-oss/gobridge/tools/bench

go 1.26.0
