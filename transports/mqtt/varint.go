package mqtt

// readVarint decodes an MQTT Variable Byte Integer at the start of b. ok
// is false when b ends inside it or it is longer than four bytes.
func readVarint(b []byte) (v, n int, ok bool) {
	for i := 0; i < 4; i++ {
		if i >= len(b) {
			return 0, 0, false
		}
		v |= int(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// appendVarint appends v as a Variable Byte Integer.
func appendVarint(b []byte, v int) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v > 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}

// varintLen is the encoded size of v.
func varintLen(v int) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// skipString steps over a two-byte-length-prefixed string or binary
// field starting at b[i].
func skipString(b []byte, i int) (int, bool) {
	if i+2 > len(b) {
		return i, false
	}
	end := i + 2 + (int(b[i])<<8 | int(b[i+1]))
	return end, end <= len(b)
}
