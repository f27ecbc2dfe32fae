package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{
			name: "plain command name",
			stat: "3001 (beam.smp) S 1 3001 3001 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 30 0 100 0 0",
			want: (1234 + 567) * ClockTick,
		},
		{
			name: "command name with spaces and parentheses",
			stat: "42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 10 5 0 0 20 0 1 0 1 0 0",
			want: 15 * ClockTick,
		},
		{name: "no command name", stat: "42 R 1", wantErr: true},
		{name: "too short", stat: "42 (x) R 1 2 3", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatCPU([]byte(tt.stat))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHasEnvEntry(t *testing.T) {
	env := []byte("HOME=/var/lib/rabbitmq\x00RABBITMQ_NODENAME=bench-1@localhost\x00X=")
	for kv, want := range map[string]bool{
		"RABBITMQ_NODENAME=bench-1@localhost": true,
		"RABBITMQ_NODENAME=bench-1":           false, // a prefix is not the entry
		"X=":                                  true,
		"NODENAME=bench-1@localhost":          false,
	} {
		if got := HasEnvEntry(env, kv); got != want {
			t.Errorf("HasEnvEntry(%q) = %v, want %v", kv, got, want)
		}
	}
}

func TestParseStatusKB(t *testing.T) {
	status := "Name:\tgobridge\nVmPeak:\t  800000 kB\nVmHWM:\t   30720 kB\nVmRSS:\t   20480 kB\n"
	tests := []struct {
		key     string
		want    int64
		wantErr bool
	}{
		{"VmHWM", 30720 * 1024, false},
		{"VmRSS", 20480 * 1024, false},
		{"VmSwap", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseStatusKB([]byte(status), tt.key)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: got %d, %v; want %d (error %v)", tt.key, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestOwnProcess(t *testing.T) {
	// The test binary itself: /proc must answer for a live process.
	if _, err := ProcCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if hwm, err := ProcHWM(os.Getpid()); err != nil || hwm <= 0 {
		t.Fatalf("VmHWM = %d, %v", hwm, err)
	}
}
