module github.com/gobridge-oss/gobridge/stores/sqlite

go 1.26

require github.com/gobridge-oss/gobridge/core v0.0.0

require github.com/mattn/go-sqlite3 v1.14.53

require github.com/google/go-cmp v0.7.0 // indirect

replace github.com/gobridge-oss/gobridge/core => ../../core
