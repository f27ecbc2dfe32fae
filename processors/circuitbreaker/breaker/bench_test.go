package breaker

import "testing"

// BenchmarkBreakerClosedAdmitRecord measures one admitted call and its
// recorded success on a closed breaker.
func BenchmarkBreakerClosedAdmitRecord(b *testing.B) {
	br, _ := New(Config{})
	b.ReportAllocs()
	for b.Loop() {
		tok, err := br.Allow()
		if err != nil {
			b.Fatal(err)
		}
		br.Record(tok, Success)
	}
}
