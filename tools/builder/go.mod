module github.com/gobridge-oss/gobridge/tools/builder

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	go.yaml.in/yaml/v3 v3.0.5
)
