package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// tracingSupport reports a telemetry.tracing block this binary cannot
// honour: none of its plugins is a tracer, or the named type is not one
// of them. The settings themselves are checked with the other plugins'
// (SettingsCheck).
func tracingSupport(f *config.File, reg *registry.Registry) []config.Problem {
	t := f.Telemetry.Tracing
	if t == nil || t.Type == "" {
		return nil
	}
	if len(reg.Types(registry.KindTracer)) == 0 {
		return []config.Problem{{Path: "telemetry.tracing", Message: "tracing is not supported in this build: the binary bundles no tracer plugin (the curated distro bundles otel)"}}
	}
	return nil
}

// openTracer builds the tracer of f's telemetry.tracing block; nil when
// the block is absent.
func openTracer(ctx context.Context, f *config.File, reg *registry.Registry, d registry.Settings) (registry.Tracing, error) {
	t := f.Telemetry.Tracing
	if t == nil {
		return nil, nil
	}
	fac, ok := reg.Tracer(t.Type)
	if !ok {
		if probs := tracingSupport(f, reg); len(probs) > 0 {
			return nil, fault.ErrNotSupported.WithMessage(probs[0].Path + ": " + probs[0].Message)
		}
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("telemetry.tracing.type: unknown tracer type %q", t.Type))
	}
	cfg, err := fac.Decode(t.Settings)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("telemetry.tracing.settings: %v", err))
	}
	tr, err := fac.Build(ctx, cfg, d)
	if err != nil {
		return nil, fmt.Errorf("telemetry.tracing: %w", err)
	}
	return tr, nil
}

// tracer is the tracer the routes open spans with: Settings.Tracer when
// the embedder gave one, else the configured plugin's, else the no-op.
func (b *Service) tracer() telemetry.Tracer {
	switch {
	case b.opts.Tracer != nil:
		return b.opts.Tracer
	case b.tracing != nil:
		return b.tracing
	}
	return telemetry.NoopTracer()
}

// closeTracing flushes and stops the configured tracer; the routes have
// stopped, so every span they opened has ended.
func (b *Service) closeTracing(ctx context.Context) {
	if b.tracing == nil {
		return
	}
	if err := b.tracing.Close(ctx); err != nil {
		b.log.Warn("tracing shutdown failed; spans not yet exported may be lost", slog.Any("err", err))
	}
	b.tracing = nil
}
