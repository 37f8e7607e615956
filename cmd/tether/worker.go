package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/supportpkg"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/natsq"
	"github.com/tether-dev/tether/worker/redisq"
)

// workerEnv names the environment variable behind each flag: Neuro OJ's
// judge worker reads these, so a tether worker drops into its deployment.
var workerEnv = map[string]string{
	"broker":                  "REDIS_URL",
	"queue":                   "JUDGE_QUEUE",
	"result-queue":            "RESULT_QUEUE",
	"work-dir":                "WORK_DIR",
	"cache-dir":               "SUPPORT_CACHE_DIR",
	"cache-max-items":         "SUPPORT_CACHE_MAX_ITEMS",
	"cache-max-mb":            "SUPPORT_CACHE_MAX_MB",
	"download-timeout":        "SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT",
	"concurrency":             "JUDGE_MAX_CONCURRENT_JUDGES",
	"allow-command":           "JUDGE_COMMAND_WHITELIST",
	"allow-evaluator-network": "JUDGE_ALLOW_EVALUATOR_NETWORK",
	"evaluator-network-allow": "JUDGE_EVALUATOR_NETWORK_ALLOW",
	"instance-id":             "JUDGE_INSTANCE_ID",
	"cpu-limit-millicores":    "JUDGE_CPU_LIMIT_MILLICORES",
	"image-prefix":            "JUDGE_IMAGE_PREFIX",
	"max-task-mb":             "TETHER_MAX_TASK_MB",
}

// workerOptions are tether worker's flags; applyEnv fills those the
// command line left alone from workerEnv's variables.
type workerOptions struct {
	Broker                string // redis://..., nats://... or embedded; "": chooseBroker decides
	Concurrency           int    // slots: submissions judged at once
	CPUs                  string // CPUs divided among the slots, e.g. 0-3
	WorkDir               string
	MaxTaskMB             int
	CacheDir              string
	CacheMaxItems         int
	CacheMaxMB            int
	DownloadTimeout       int // seconds
	Metrics               string
	LogFormat             string // text or json
	Drain                 time.Duration
	Queue                 string // Redis list of tasks
	ResultQueue           string // Redis list of results
	AllowEvaluatorNetwork bool
	NetworkAllow          []string
	InstanceID            string
	CPULimitMillicores    int
	ImagePrefix           string
	Runtimes              []string // IMAGE=RUNTIME
	DataDir               string   // the embedded broker's store and token
	Listen                string   // where the embedded broker listens
	Sandbox               string
	Build                 buildOptions
	AllowCommands         []string
}

func newWorkerCmd(m machine) *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Judge a queue of submissions (Neuro OJ's Redis queue, or NATS JetStream)",
		Long: `worker pulls submissions from a queue and judges each with the same judge and
sandbox as tether judge, --concurrency at a time, and pushes the results back.

--broker redis://HOST:PORT/DB speaks Neuro OJ's judge queue protocol exactly
(its worker's environment variables work too: REDIS_URL, JUDGE_QUEUE, ...);
nats://HOST:4222 uses NATS JetStream; embedded runs a NATS server in this
process on 127.0.0.1:4222, which tether submit and other workers join. With
no --broker and no REDIS_URL, a worker given any other of Neuro OJ's worker
variables (JUDGE_QUEUE, WORK_DIR, ...) uses Neuro OJ's default
redis://127.0.0.1/; one given none of them, embedded. The first log line
says which and why.

SIGTERM or SIGINT stops pulling; running submissions get --drain to finish,
then what is unfinished goes back to the queue. A second signal gives it back
at once. See docs/worker.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd, m, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Broker, "broker", "", "queue: redis://[:password@]HOST:PORT[/DB], nats://HOST:PORT, or embedded (env REDIS_URL; default redis://127.0.0.1/ when another of Neuro OJ's worker variables is set, else embedded)")
	f.IntVar(&o.Concurrency, "concurrency", 2, "slots: submissions judged at once, 1-1024 (env JUDGE_MAX_CONCURRENT_JUDGES)")
	f.StringVar(&o.CPUs, "cpus", "", "CPUs to divide among the slots, e.g. 0-3 (a slot's two sides get CPUs of their own where there are enough); default any")
	f.StringVar(&o.WorkDir, "work-dir", worker.DefaultWorkDir(), "private folder (this uid's, mode 0700) for the tasks' packages and fallback-results (env WORK_DIR)")
	f.IntVar(&o.MaxTaskMB, "max-task-mb", worker.DefaultMaxTaskBytes>>20, "a task larger than this many MiB goes to the dead letters unread (env TETHER_MAX_TASK_MB)")
	f.StringVar(&o.CacheDir, "cache-dir", "", "support package cache (env SUPPORT_CACHE_DIR; default your cache dir's tether/packages)")
	f.IntVar(&o.CacheMaxItems, "cache-max-items", supportpkg.DefaultMaxItems, "packages kept in the cache (env SUPPORT_CACHE_MAX_ITEMS)")
	f.IntVar(&o.CacheMaxMB, "cache-max-mb", supportpkg.DefaultMaxBytes>>20, "MiB kept in the cache (env SUPPORT_CACHE_MAX_MB)")
	f.IntVar(&o.DownloadTimeout, "download-timeout", int(supportpkg.DefaultDownloadTimeout/time.Second), "seconds a package download may take (env SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT)")
	f.StringVar(&o.Metrics, "metrics", "", "serve Prometheus /metrics and /healthz on `ADDR` (e.g. 127.0.0.1:9464)")
	f.StringVar(&o.LogFormat, "log-format", "text", "log lines as text or json")
	f.DurationVar(&o.Drain, "drain", worker.DefaultDrain, "how long running submissions may finish after SIGTERM before they go back to the queue")
	f.StringVar(&o.Queue, "queue", redisq.DefaultQueue, "Redis list of tasks (env JUDGE_QUEUE)")
	f.StringVar(&o.ResultQueue, "result-queue", redisq.DefaultResultQueue, "Redis list of results (env RESULT_QUEUE)")
	f.BoolVar(&o.AllowEvaluatorNetwork, "allow-evaluator-network", false, "let evaluators that ask for runtime_config.evaluator.network have it (env JUDGE_ALLOW_EVALUATOR_NETWORK)")
	addNetworkAllowFlag(f, &o.NetworkAllow, "JUDGE_EVALUATOR_NETWORK_ALLOW")
	f.StringVar(&o.InstanceID, "instance-id", "", "this worker's name in its log lines (env JUDGE_INSTANCE_ID; default the host name)")
	f.IntVar(&o.CPULimitMillicores, "cpu-limit-millicores", 0, "cap each sandbox's CPU at this many thousandths of a CPU, a quota (cgroup cpu.max), not a pin; needs --sandbox linux (env JUDGE_CPU_LIMIT_MILLICORES; default no cap)")
	f.StringVar(&o.ImagePrefix, "image-prefix", "", "the prefix Neuro OJ's judge puts before its image names; an image named with it maps as the name without it (env JUDGE_IMAGE_PREFIX)")
	f.StringSliceVar(&o.Runtimes, "runtime", nil, "map a task's image to a runtime, IMAGE=python (repeatable); noj-evaluator-python and noj-solution-python are known")
	f.StringVar(&o.DataDir, "data-dir", defaultDataDir(), "the embedded broker's store and token")
	f.StringVar(&o.Listen, "listen", natsq.DefaultListen, "where the embedded broker listens")
	addSandboxFlag(f, &o.Sandbox)
	o.Build.addFlags(f)
	addAllowCommandFlag(f, &o.AllowCommands, "JUDGE_COMMAND_WHITELIST")
	return cmd
}

// applyEnv sets each flag of cmd the command line left alone from its
// environment variable in env (flag name to variable), when that is set.
func applyEnv(cmd *cobra.Command, env map[string]string) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		name, ok := env[f.Name]
		if !ok || f.Changed || err != nil {
			return
		}
		v, set := os.LookupEnv(name)
		if !set || v == "" {
			return
		}
		if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
			sv.Replace(strings.Split(v, ","))
		} else if e := f.Value.Set(v); e != nil {
			err = fmt.Errorf("%s=%q: %v", name, v, e)
		}
	})
	return err
}

func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	var h slog.Handler
	switch format {
	case "text":
		h = slog.NewTextHandler(w, nil)
	case "json":
		h = slog.NewJSONHandler(w, nil)
	default:
		return nil, fmt.Errorf("--log-format %q: want text or json", format)
	}
	return slog.New(h), nil
}

func runWorker(cmd *cobra.Command, m machine, o *workerOptions) error {
	// The broker is chosen from the command line's --broker, before
	// applyEnv sets it from REDIS_URL: chooseBroker tells the two apart.
	brokerAt, why := chooseBroker(o.Broker, os.LookupEnv)
	if err := applyEnv(cmd, workerEnv); err != nil {
		return err
	}
	log, err := newLogger(cmd.ErrOrStderr(), o.LogFormat)
	if err != nil {
		return err
	}
	id := o.InstanceID
	if id == "" {
		id, _ = os.Hostname()
	}
	log = log.With("instance", id)
	// The first line says which broker and why: a Neuro OJ deployment
	// that lost its REDIS_URL must not quietly judge an empty NATS queue.
	log.Info("broker chosen", "broker", redactBroker(brokerAt), "why", why)

	slots := o.Concurrency
	if slots < 1 || slots > 1024 {
		return fmt.Errorf("--concurrency %d: want 1 to 1024 (env JUDGE_MAX_CONCURRENT_JUDGES)", slots)
	}
	var cpus []int
	if o.CPUs != "" {
		if cpus, err = worker.ParseCPUList(o.CPUs); err != nil {
			return fmt.Errorf("--cpus: %w", err)
		}
	}
	slotCPUs := worker.DivideCPUs(cpus, slots)
	for _, s := range slotCPUs {
		if err := checkCPUs(s); err != nil {
			return fmt.Errorf("--cpus: %w", err)
		}
	}
	runtimes, err := parseRuntimes(o.Runtimes)
	if err != nil {
		return err
	}
	millicores := o.CPULimitMillicores
	if millicores != 0 && (millicores < sandbox.MinCPUMillicores || millicores > 1024*1000) {
		return fmt.Errorf("--cpu-limit-millicores %d: want %d to %d, or 0 for no cap (env JUDGE_CPU_LIMIT_MILLICORES)", millicores, sandbox.MinCPUMillicores, 1024*1000)
	}
	workDir := o.WorkDir
	if err := worker.PrepareWorkDir(workDir); err != nil {
		return fmt.Errorf("--work-dir (env WORK_DIR): %w", err)
	}
	maxTaskMB := o.MaxTaskMB
	if maxTaskMB < 1 || maxTaskMB > 1<<20 {
		return fmt.Errorf("--max-task-mb %d: want 1 to %d MiB (env TETHER_MAX_TASK_MB)", maxTaskMB, 1<<20)
	}
	for _, dir := range worker.RemoveStaleTasks(workDir) {
		log.Info("removed the task folder of a worker that died", "dir", dir)
	}

	var metrics *worker.Metrics
	if o.Metrics != "" {
		metrics = worker.NewMetrics(slots)
		stopMetrics, err := serveMetrics(o.Metrics, metrics, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	cache, err := newPackageCache(o, metrics, log)
	if err != nil {
		return err
	}
	languages, buildCache, err := o.Build.languages()
	if err != nil {
		return err
	}
	runner, err := m.judgeRunner(cmd.ErrOrStderr(), o.Sandbox, log)
	if err != nil {
		return err
	}
	defer runner.Close()
	if millicores > 0 && runner.Kind() != "linux" {
		return fmt.Errorf("--cpu-limit-millicores (env JUDGE_CPU_LIMIT_MILLICORES) needs --sandbox linux, which caps a sandbox's CPU with its cgroup; this worker's sandbox is %s", runner.Kind())
	}
	allow, err := networkAllow(o.NetworkAllow, "JUDGE_EVALUATOR_NETWORK_ALLOW")
	if err != nil {
		return err
	}
	judger := &worker.Judger{Runner: runner, Packages: cache, Runtimes: runtimes,
		Allowed: o.AllowCommands, WorkDir: workDir, Network: o.AllowEvaluatorNetwork, NetworkAllow: allow,
		Languages: languages, BuildCache: buildCache, CPUMillicores: millicores, Metrics: metrics}
	judger.ImagePrefix = o.ImagePrefix

	ctx := cmd.Context()
	broker, closeBroker, err := openWorkerBroker(ctx, o, brokerAt, metrics, log)
	if err != nil {
		return err
	}
	defer closeBroker()

	w, err := worker.New(worker.Config{Broker: broker, Judge: judger.Judge, Slots: slotCPUs,
		Drain: o.Drain, MaxTaskBytes: maxTaskMB << 20, Log: log, Metrics: metrics})
	if err != nil {
		return err
	}
	stop, stopped := context.WithCancel(ctx)
	kill, killed := context.WithCancel(ctx)
	defer stopped()
	defer killed()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for n := 0; ; n++ {
			select {
			case s := <-sigs:
				if n == 0 {
					log.Info("stopping: no more pulls; running submissions may finish", "signal", s.String(), "drain", o.Drain.String())
					stopped()
				} else {
					log.Warn("second signal: giving back running submissions now", "signal", s.String())
					killed()
				}
			case <-done:
				return
			}
		}
	}()
	log.Info("worker ready", "slots", slots, "sandbox", runner.Kind(), "cpu_limit_millicores", millicores)
	err = w.Run(stop, kill)
	log.Info("worker stopped")
	return err
}

// parseRuntimes is the image-to-runtime map of the --runtime list over
// worker.DefaultRuntimes.
func parseRuntimes(list []string) (map[string]string, error) {
	m := make(map[string]string, len(worker.DefaultRuntimes)+len(list))
	for k, v := range worker.DefaultRuntimes {
		m[k] = v
	}
	for _, kv := range list {
		image, rt, ok := strings.Cut(kv, "=")
		if !ok || image == "" {
			return nil, fmt.Errorf("--runtime %q: want IMAGE=RUNTIME, e.g. noj-evaluator-python=python", kv)
		}
		if rt != worker.RuntimePython {
			return nil, fmt.Errorf("--runtime %q: %q is not a runtime tether has (only %q)", kv, rt, worker.RuntimePython)
		}
		m[image] = rt
	}
	return m, nil
}

func newPackageCache(o *workerOptions, metrics *worker.Metrics, log *slog.Logger) (*supportpkg.Cache, error) {
	opts := supportpkg.Options{Dir: o.CacheDir, MaxItems: o.CacheMaxItems, MaxBytes: int64(o.CacheMaxMB) << 20,
		DownloadTimeout: time.Duration(o.DownloadTimeout) * time.Second}
	opts.OnEvent = func(e supportpkg.Event) {
		if e.Kind == supportpkg.EventUnchecked {
			log.Warn("package without checksum_sha256 used unchecked, as Neuro OJ's judge does (told once per package)",
				"url", e.URL, "sha256", e.Checksum, "bytes", e.Bytes)
		}
		metrics.CacheEvent(string(e.Kind), e.TotalBytes)
	}
	c, err := supportpkg.NewCache(opts)
	if err != nil {
		return nil, fmt.Errorf("support package cache (--cache-dir / SUPPORT_CACHE_DIR): %w", err)
	}
	return c, nil
}

// serveMetrics serves /metrics and /healthz; the returned func stops it.
func serveMetrics(addr string, m *worker.Metrics, log *slog.Logger) (func(), error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: %v", addr, err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "error", err.Error())
		}
	}()
	log.Info("metrics", "url", "http://"+l.Addr().String()+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}, nil
}

func checkCPUs(s worker.SlotCPUs) error {
	for _, c := range [][]int{s.Evaluator, s.Solution} {
		if err := sandbox.CheckCPUs(c); err != nil {
			return err
		}
	}
	return nil
}
