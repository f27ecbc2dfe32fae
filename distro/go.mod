module github.com/gobridge-oss/gobridge/distro

go 1.26

require github.com/gobridge-oss/gobridge/core v0.0.0

replace github.com/gobridge-oss/gobridge/core => ../core
