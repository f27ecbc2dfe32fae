package sqs

// stackReserve is how many bytes of stack a goroutine that makes SDK calls
// keeps in use while it waits between them.
const stackReserve = 24 << 10

// withStackReserve runs f above a frame of stackReserve bytes.
//
// An SDK call needs tens of KiB of stack. At each GC cycle the runtime
// halves the stack of a goroutine that uses less than a quarter of it,
// which is what a poller or a flusher does while it waits near the bottom
// of its stack; its next call then grows the stack again, copying it
// frame by frame. With the reserve below it in use all the time, the
// goroutine keeps a stack that fits its calls and copies nothing.
//
//go:noinline
func withStackReserve(f func()) {
	var reserve [stackReserve]byte
	holdStack(reserve[:])
	f()
}

// holdStack makes the reserve a frame the compiler keeps.
//
//go:noinline
func holdStack(b []byte) { b[len(b)-1] = 1 }
