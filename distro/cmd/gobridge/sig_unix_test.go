package main

import "syscall"

// sigterm is the signal the tests stop the binary with.
var sigterm = syscall.SIGTERM
