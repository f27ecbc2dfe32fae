module github.com/gobridge-oss/gobridge/stores/sqlite

go 1.26.0

require github.com/gobridge-oss/gobridge/core v0.0.0

require github.com/mattn/go-sqlite3 v1.14.53

require (
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/google/go-cmp v0.7.0
)

replace github.com/gobridge-oss/gobridge/core => ../../core
