package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/service"
)

// cmdRun runs a configuration until SIGINT or SIGTERM.
func (a *app) cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defHelp := "configuration file (required)"
	if a.DefaultConfig != nil {
		defHelp = "configuration file (default: " + a.DefaultConfigName + ")"
	}
	path := fs.String("c", "", defHelp)
	dataDir := fs.String("data-dir", "data", "directory for relative store paths")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *path == "" && a.DefaultConfig == nil {
		fmt.Fprintf(stderr, "%s run: -c FILE is required\n", a.Name)
		return exitUsage
	}
	reg := a.reg
	load := func() (*config.File, error) {
		if *path == "" {
			return config.Parse(a.DefaultConfig)
		}
		return config.Load(*path)
	}
	f, err := load()
	if err == nil {
		var warns []config.Warning
		warns, err = service.Validate(f, reg, nil)
		printWarnings(stderr, warns)
	}
	if err != nil {
		reportProblems(stderr, *path, err)
		return exitInvalid
	}
	log := newLogger(stderr, f.Telemetry)
	if *path == "" {
		log.Info("no -c given: running "+a.DefaultConfigName, "data_dir", *dataDir)
	}
	meter, metrics := newMetrics(f.Telemetry)
	opts := service.Settings{
		Registry: reg, Logger: log, Meter: meter, MetricsHandler: metrics, DataDir: *dataDir,
		Version: strings.TrimSpace(strings.SplitN(a.versionReport(), "\n", 2)[0]),
		Parse:   config.Parse,
	}
	if *path != "" {
		opts.Reread = load
	}
	b, err := service.NewFromFile(ctx, f, opts)
	if err != nil {
		log.Error("cannot build the bridge", "err", err)
		return exitFailed
	}
	api, err := startAPI(ctx, f, b, log)
	if err != nil {
		log.Error("cannot start the admin and monitor API", "err", err)
		_ = b.Close(context.WithoutCancel(ctx))
		return exitFailed
	}
	if api != nil {
		b.UseAPI(api) // a reload applies changed API keys to the running server
	}
	stopHUP := watchSIGHUP(ctx, b, log)
	defer stopHUP()
	log.Info("bridge running", "bridge", f.Bridge.ID, "routes", len(f.Routes))
	runErr := b.Run(ctx)
	if api != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = api.Shutdown(sctx)
		cancel()
	}
	if runErr != nil {
		log.Error("bridge stopped with errors", "err", runErr)
		return exitFailed
	}
	log.Info("bridge stopped")
	return exitOK
}

// startAPI starts the admin and monitor servers when the file has an http
// block.
func startAPI(ctx context.Context, f *config.File, b *service.Service, log *slog.Logger) (*httpapi.Server, error) {
	if f.HTTP == nil {
		return nil, nil
	}
	h := f.HTTP
	api, err := httpapi.New(httpapi.Config{
		AdminAddr: h.AdminAddr, MonitorAddr: h.MonitorAddr,
		AdminAPIKey: h.AdminAPIKey, MonitorAPIKey: h.MonitorAPIKey,
		CORSOrigins: h.CORSOrigins, TLSCertFile: h.TLSCertFile, TLSKeyFile: h.TLSKeyFile,
		Logger: log.With("component", "httpapi"),
	}, b)
	if err != nil {
		return nil, err
	}
	if err := api.Start(ctx); err != nil {
		return nil, err
	}
	log.Info("admin and monitor API listening", "admin", api.AdminAddr(), "monitor", api.MonitorAddr())
	return api, nil
}

// watchSIGHUP reloads the configuration file on every SIGHUP until the
// returned function is called.
func watchSIGHUP(ctx context.Context, b *service.Service, log *slog.Logger) func() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-hup:
				res, err := b.Reload(ctx, nil)
				if err != nil {
					log.Error("SIGHUP reload refused", "err", err, "problems", res.Problems)
					continue
				}
				log.Info("SIGHUP reload applied", "generation", res.Generation, "added", res.Added,
					"removed", res.Removed, "changed", res.Changed, "restart_required", res.RestartRequired)
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
		<-stopped
	}
}

// newLogger builds the process logger from the telemetry block.
func newLogger(w io.Writer, t config.Telemetry) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(t.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	ho := &slog.HandlerOptions{Level: level}
	if t.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, ho))
	}
	return slog.New(slog.NewTextHandler(w, ho))
}

// printWarnings writes configuration warnings, one per line.
func printWarnings(w io.Writer, warns []config.Warning) {
	for _, x := range warns {
		fmt.Fprintf(w, "warning: %s: %s\n", x.Path, x.Message)
	}
}

// reportProblems writes every configuration problem, one per line.
func reportProblems(w io.Writer, path string, err error) {
	if path == "" {
		path = "quickstart.yaml (embedded)"
	}
	var ps config.Problems
	if errors.As(err, &ps) {
		fmt.Fprintf(w, "%s: %d problem(s):\n", path, len(ps))
		for _, p := range ps {
			fmt.Fprintf(w, "  %s: %s\n", p.Path, p.Message)
		}
		return
	}
	fmt.Fprintf(w, "%s: %v\n", path, err)
}
