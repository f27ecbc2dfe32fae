package sbemu

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// wireEntity is an Entity (or Subscription) as the Python program reads it.
type wireEntity struct {
	Name             string       `json:"name"`
	LockMS           int64        `json:"lock_ms"`
	MaxDeliveryCount int          `json:"max_delivery_count"`
	RequiresSession  bool         `json:"requires_session"`
	Subscriptions    []wireEntity `json:"subscriptions,omitempty"`
}

type wireConfig struct {
	Entities       []wireEntity `json:"entities"`
	MaxMessageSize int          `json:"max_message_size"`
	Port           int          `json:"port"`
}

// validate lists every problem of opts, naming the field.
func validate(opts Options) error {
	var problems []string
	seen := map[string]bool{}
	checkName := func(field, name string) {
		switch {
		case name == "":
			problems = append(problems, field+": empty")
		case strings.ContainsAny(name, "/\\$") || strings.TrimSpace(name) != name:
			problems = append(problems, fmt.Sprintf("%s: %q must not contain '/', '\\', '$' or surrounding spaces", field, name))
		}
	}
	checkLimits := func(field string, lock time.Duration, maxDC int) {
		if lock < 0 || (lock > 0 && lock < time.Millisecond) {
			problems = append(problems, fmt.Sprintf("%s.LockDuration: %v must be 0 (default 30s) or at least 1ms", field, lock))
		}
		if maxDC < 0 {
			problems = append(problems, fmt.Sprintf("%s.MaxDeliveryCount: %d must be 0 (default 10) or positive", field, maxDC))
		}
	}
	for i, e := range opts.Entities {
		field := fmt.Sprintf("Entities[%d]", i)
		checkName(field+".Name", e.Name)
		if seen[strings.ToLower(e.Name)] {
			problems = append(problems, fmt.Sprintf("%s.Name: %q declared twice (names are case-insensitive)", field, e.Name))
		}
		seen[strings.ToLower(e.Name)] = true
		checkLimits(field, e.LockDuration, e.MaxDeliveryCount)
		if len(e.Subscriptions) > 0 && (e.LockDuration != 0 || e.MaxDeliveryCount != 0 || e.RequiresSession) {
			problems = append(problems, field+": LockDuration, MaxDeliveryCount and RequiresSession do nothing on a topic: set them on its Subscriptions")
		}
		subs := map[string]bool{}
		for j, s := range e.Subscriptions {
			sf := fmt.Sprintf("%s.Subscriptions[%d]", field, j)
			checkName(sf+".Name", s.Name)
			if subs[strings.ToLower(s.Name)] {
				problems = append(problems, fmt.Sprintf("%s.Name: %q declared twice", sf, s.Name))
			}
			subs[strings.ToLower(s.Name)] = true
			checkLimits(sf, s.LockDuration, s.MaxDeliveryCount)
		}
	}
	if opts.MaxMessageSize < 0 {
		problems = append(problems, fmt.Sprintf("MaxMessageSize: %d must be 0 (default 256 KiB) or positive", opts.MaxMessageSize))
	}
	if opts.Port < 0 || opts.Port > 65535 {
		problems = append(problems, fmt.Sprintf("Port: %d is not a TCP port (0 picks a free one)", opts.Port))
	}
	if len(problems) > 0 {
		return errors.New("sbemu: invalid options: " + strings.Join(problems, "; "))
	}
	return nil
}

func toWire(name string, lock time.Duration, maxDC int, sessions bool) wireEntity {
	if lock == 0 {
		lock = DefaultLockDuration
	}
	if maxDC == 0 {
		maxDC = DefaultMaxDeliveryCount
	}
	return wireEntity{Name: name, LockMS: lock.Milliseconds(), MaxDeliveryCount: maxDC, RequiresSession: sessions}
}

// writeFiles puts the embedded Python program and its config into dir.
func writeFiles(dir string, opts Options) error {
	err := fs.WalkDir(scripts, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := scripts.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path), b, 0o600)
	})
	if err != nil {
		return fmt.Errorf("sbemu: write program: %w", err)
	}
	cfg := wireConfig{MaxMessageSize: opts.MaxMessageSize, Port: opts.Port}
	if cfg.MaxMessageSize == 0 {
		cfg.MaxMessageSize = DefaultMaxMessageSize
	}
	for _, e := range opts.Entities {
		w := toWire(e.Name, e.LockDuration, e.MaxDeliveryCount, e.RequiresSession)
		for _, s := range e.Subscriptions {
			w.Subscriptions = append(w.Subscriptions, toWire(s.Name, s.LockDuration, s.MaxDeliveryCount, s.RequiresSession))
		}
		cfg.Entities = append(cfg.Entities, w)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("sbemu: config: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		return fmt.Errorf("sbemu: write config: %w", err)
	}
	return nil
}

// lastLines keeps the last few stderr lines, for start-up errors.
type lastLines struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (l *lastLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > l.max {
		l.lines = l.lines[len(l.lines)-l.max:]
	}
}

func (l *lastLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, " | ")
}
