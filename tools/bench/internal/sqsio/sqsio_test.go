package sqsio

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

func TestBodyRoundTrip(t *testing.T) {
	sent := time.Unix(1_700_000_000, 123456789)
	for _, size := range []int{0, BodyHeader - 1, BodyHeader, BodyHeader + 1, 256, 4096} {
		s := bench.Stamp{Run: 0xfeedface, Seq: uint64(size), Sent: sent}
		body := EncodeBody(s, size)
		if want := max(size, BodyHeader); len(body) != want {
			t.Errorf("size %d: body of %d characters, want %d", size, len(body), want)
		}
		for _, r := range body {
			if (r < '0' || r > '9') && (r < 'a' || r > 'z') {
				t.Fatalf("size %d: body has %q, not a hex digit or a letter", size, r)
			}
		}
		got, err := DecodeBody(body)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Errorf("size %d: stamp (-want +got):\n%s", size, diff)
		}
	}
}

func TestDecodeBodyRejects(t *testing.T) {
	tests := []struct{ name, body string }{
		{"short", "00ff"},
		{"not hex", strings.Repeat("zz", bench.HeaderSize)},
	}
	for _, tc := range tests {
		if _, err := DecodeBody(tc.body); err == nil {
			t.Errorf("%s: DecodeBody(%q) succeeded", tc.name, tc.body)
		}
	}
}

func TestBatches(t *testing.T) {
	tests := []struct {
		n    int
		want [][2]int
	}{
		{0, nil},
		{7, [][2]int{{0, 7}}},
		{10, [][2]int{{0, 10}}},
		{23, [][2]int{{0, 10}, {10, 10}, {20, 3}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, batches(tc.n)); diff != "" {
			t.Errorf("batches(%d) (-want +got):\n%s", tc.n, diff)
		}
	}
}

func TestAction(t *testing.T) {
	tests := []struct{ target, body, want string }{
		{"", "Action=SendMessageBatch&Version=2012-11-05&QueueUrl=x", "SendMessageBatch"},
		{"AmazonSQS.ReceiveMessage", `{"QueueUrl":"x"}`, "ReceiveMessage"},
		{"", "Version=2012-11-05", "?"},
		{"", "%zz", "?"},
	}
	for _, tc := range tests {
		if got := Action(tc.target, []byte(tc.body)); got != tc.want {
			t.Errorf("Action(%q, %q) = %q, want %q", tc.target, tc.body, got, tc.want)
		}
	}
}

func TestDiffAndPerMessage(t *testing.T) {
	before := map[string]int64{"ReceiveMessage": 5, "GetQueueUrl": 1}
	after := map[string]int64{"ReceiveMessage": 15, "GetQueueUrl": 1, "SendMessageBatch": 10, "DeleteMessageBatch": 11}
	d := Diff(before, after)
	if diff := cmp.Diff(map[string]int64{"ReceiveMessage": 10, "SendMessageBatch": 10, "DeleteMessageBatch": 11}, d); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	want := "DeleteMessageBatch 0.110, ReceiveMessage 0.100, SendMessageBatch 0.100; all 0.310"
	if got := PerMessage(d, 100); got != want {
		t.Errorf("PerMessage = %q, want %q", got, want)
	}
	if got := PerMessage(d, 0); got != "" {
		t.Errorf("PerMessage with no messages = %q, want empty", got)
	}
}
