//go:build !unix

package sqs

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
