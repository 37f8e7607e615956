package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
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

func init() {
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
		RunE: runWorker,
	}
	f := cmd.Flags()
	f.String("broker", "", "queue: redis://[:password@]HOST:PORT[/DB], nats://HOST:PORT, or embedded (env REDIS_URL; default redis://127.0.0.1/ when another of Neuro OJ's worker variables is set, else embedded)")
	f.Int("concurrency", 2, "slots: submissions judged at once, 1-1024 (env JUDGE_MAX_CONCURRENT_JUDGES)")
	f.String("cpus", "", "CPUs to divide among the slots, e.g. 0-3 (a slot's two sides get CPUs of their own where there are enough); default any")
	f.String("work-dir", worker.DefaultWorkDir(), "private folder (this uid's, mode 0700) for the tasks' packages and fallback-results (env WORK_DIR)")
	f.Int("max-task-mb", worker.DefaultMaxTaskBytes>>20, "a task larger than this many MiB goes to the dead letters unread (env TETHER_MAX_TASK_MB)")
	f.String("cache-dir", "", "support package cache (env SUPPORT_CACHE_DIR; default your cache dir's tether/packages)")
	f.Int("cache-max-items", supportpkg.DefaultMaxItems, "packages kept in the cache (env SUPPORT_CACHE_MAX_ITEMS)")
	f.Int("cache-max-mb", supportpkg.DefaultMaxBytes>>20, "MiB kept in the cache (env SUPPORT_CACHE_MAX_MB)")
	f.Int("download-timeout", int(supportpkg.DefaultDownloadTimeout/time.Second), "seconds a package download may take (env SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT)")
	f.String("metrics", "", "serve Prometheus /metrics and /healthz on `ADDR` (e.g. 127.0.0.1:9464)")
	f.String("log-format", "text", "log lines as text or json")
	f.Duration("drain", worker.DefaultDrain, "how long running submissions may finish after SIGTERM before they go back to the queue")
	f.String("queue", redisq.DefaultQueue, "Redis list of tasks (env JUDGE_QUEUE)")
	f.String("result-queue", redisq.DefaultResultQueue, "Redis list of results (env RESULT_QUEUE)")
	f.Bool("allow-evaluator-network", false, "let evaluators that ask for runtime_config.evaluator.network have it (env JUDGE_ALLOW_EVALUATOR_NETWORK)")
	addNetworkAllowFlag(cmd, "JUDGE_EVALUATOR_NETWORK_ALLOW")
	f.String("instance-id", "", "this worker's name in its log lines (env JUDGE_INSTANCE_ID; default the host name)")
	f.Int("cpu-limit-millicores", 0, "cap each sandbox's CPU at this many thousandths of a CPU, a quota (cgroup cpu.max), not a pin; needs --sandbox linux (env JUDGE_CPU_LIMIT_MILLICORES; default no cap)")
	f.String("image-prefix", "", "the prefix Neuro OJ's judge puts before its image names; an image named with it maps as the name without it (env JUDGE_IMAGE_PREFIX)")
	f.StringSlice("runtime", nil, "map a task's image to a runtime, IMAGE=python (repeatable); noj-evaluator-python and noj-solution-python are known")
	f.String("data-dir", defaultDataDir(), "the embedded broker's store and token")
	f.String("listen", natsq.DefaultListen, "where the embedded broker listens")
	f.String("sandbox", "auto", "isolation of both sides: auto, linux, or none")
	addLanguageFlags(cmd)
	addAllowCommandFlag(cmd)
	f.Lookup("allow-command").Usage += " (env JUDGE_COMMAND_WHITELIST, comma-separated)"
	rootCmd.AddCommand(cmd)
}

func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "tether")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "tether-data")
	}
	return filepath.Join(home, ".local", "share", "tether")
}

// applyWorkerEnv sets each flag the command line left alone from its
// environment variable, when that is set.
func applyWorkerEnv(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		name, ok := workerEnv[f.Name]
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

func newLogger(cmd *cobra.Command) (*slog.Logger, error) {
	format, _ := cmd.Flags().GetString("log-format")
	w := cmd.ErrOrStderr()
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

func runWorker(cmd *cobra.Command, _ []string) error {
	if err := applyWorkerEnv(cmd); err != nil {
		return err
	}
	fl := cmd.Flags()
	log, err := newLogger(cmd)
	if err != nil {
		return err
	}
	id, _ := fl.GetString("instance-id")
	if id == "" {
		id, _ = os.Hostname()
	}
	log = log.With("instance", id)
	// The first line says which broker and why: a Neuro OJ deployment
	// that lost its REDIS_URL must not quietly judge an empty NATS queue.
	brokerAt, why := chooseBroker(cmd, os.LookupEnv)
	log.Info("broker chosen", "broker", redactBroker(brokerAt), "why", why)

	slots, _ := fl.GetInt("concurrency")
	if slots < 1 || slots > 1024 {
		return fmt.Errorf("--concurrency %d: want 1 to 1024 (env JUDGE_MAX_CONCURRENT_JUDGES)", slots)
	}
	var cpus []int
	if list, _ := fl.GetString("cpus"); list != "" {
		if cpus, err = worker.ParseCPUList(list); err != nil {
			return fmt.Errorf("--cpus: %w", err)
		}
	}
	slotCPUs := worker.DivideCPUs(cpus, slots)
	for _, s := range slotCPUs {
		if err := checkCPUs(s); err != nil {
			return fmt.Errorf("--cpus: %w", err)
		}
	}
	runtimes, err := parseRuntimes(fl)
	if err != nil {
		return err
	}
	millicores, _ := fl.GetInt("cpu-limit-millicores")
	if millicores != 0 && (millicores < sandbox.MinCPUMillicores || millicores > 1024*1000) {
		return fmt.Errorf("--cpu-limit-millicores %d: want %d to %d, or 0 for no cap (env JUDGE_CPU_LIMIT_MILLICORES)", millicores, sandbox.MinCPUMillicores, 1024*1000)
	}
	workDir, _ := fl.GetString("work-dir")
	if err := worker.PrepareWorkDir(workDir); err != nil {
		return fmt.Errorf("--work-dir (env WORK_DIR): %w", err)
	}
	maxTaskMB, _ := fl.GetInt("max-task-mb")
	if maxTaskMB < 1 || maxTaskMB > 1<<20 {
		return fmt.Errorf("--max-task-mb %d: want 1 to %d MiB (env TETHER_MAX_TASK_MB)", maxTaskMB, 1<<20)
	}
	for _, dir := range worker.RemoveStaleTasks(workDir) {
		log.Info("removed the task folder of a worker that died", "dir", dir)
	}

	var metrics *worker.Metrics
	if addr, _ := fl.GetString("metrics"); addr != "" {
		metrics = worker.NewMetrics(slots)
		stopMetrics, err := serveMetrics(addr, metrics, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	cache, err := newPackageCache(fl, metrics, log)
	if err != nil {
		return err
	}
	languages, buildCache, err := languageOptions(cmd)
	if err != nil {
		return err
	}
	runner, err := judgeRunner(cmd, log)
	if err != nil {
		return err
	}
	defer runner.Close()
	if millicores > 0 && runner.Kind() != "linux" {
		return fmt.Errorf("--cpu-limit-millicores (env JUDGE_CPU_LIMIT_MILLICORES) needs --sandbox linux, which caps a sandbox's CPU with its cgroup; this worker's sandbox is %s", runner.Kind())
	}
	network, _ := fl.GetBool("allow-evaluator-network")
	allow, err := networkAllow(cmd, "JUDGE_EVALUATOR_NETWORK_ALLOW")
	if err != nil {
		return err
	}
	judger := &worker.Judger{Runner: runner, Packages: cache, Runtimes: runtimes,
		Allowed: allowedCommands(cmd), WorkDir: workDir, Network: network, NetworkAllow: allow,
		Languages: languages, BuildCache: buildCache, CPUMillicores: millicores}
	judger.ImagePrefix, _ = fl.GetString("image-prefix")

	ctx := cmd.Context()
	broker, closeBroker, err := openWorkerBroker(ctx, cmd, brokerAt, workDir, maxTaskMB<<20, metrics, log)
	if err != nil {
		return err
	}
	defer closeBroker()

	w, err := worker.New(worker.Config{Broker: broker, Judge: judger.Judge, Slots: slotCPUs,
		Drain: mustDuration(fl, "drain"), MaxTaskBytes: maxTaskMB << 20, Log: log, Metrics: metrics})
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
					log.Info("stopping: no more pulls; running submissions may finish", "signal", s.String(), "drain", mustDuration(fl, "drain").String())
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

func mustDuration(fl *pflag.FlagSet, name string) time.Duration {
	d, _ := fl.GetDuration(name)
	return d
}

func parseRuntimes(fl *pflag.FlagSet) (map[string]string, error) {
	list, _ := fl.GetStringSlice("runtime")
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

func newPackageCache(fl *pflag.FlagSet, metrics *worker.Metrics, log *slog.Logger) (*supportpkg.Cache, error) {
	dir, _ := fl.GetString("cache-dir")
	items, _ := fl.GetInt("cache-max-items")
	mb, _ := fl.GetInt("cache-max-mb")
	secs, _ := fl.GetInt("download-timeout")
	opts := supportpkg.Options{Dir: dir, MaxItems: items, MaxBytes: int64(mb) << 20,
		DownloadTimeout: time.Duration(secs) * time.Second}
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

// neuroOJDefaultRedis is where Neuro OJ's judge worker looks for Redis when
// REDIS_URL is not set.
const neuroOJDefaultRedis = "redis://127.0.0.1/"

// brokerURL is the broker a worker uses, and tether submit with it.
func brokerURL(cmd *cobra.Command) string {
	u, _ := chooseBroker(cmd, os.LookupEnv)
	return u
}

// chooseBroker is the broker and why: --broker, else REDIS_URL, else Neuro
// OJ's default Redis when any other variable of Neuro OJ's worker is set
// (a Neuro OJ deployment), else the embedded NATS broker.
func chooseBroker(cmd *cobra.Command, lookupEnv func(string) (string, bool)) (u, why string) {
	if f := cmd.Flags().Lookup("broker"); f != nil && f.Changed && f.Value.String() != "" {
		return f.Value.String(), "--broker"
	}
	if v, ok := lookupEnv("REDIS_URL"); ok && v != "" {
		return v, "REDIS_URL"
	}
	var set []string
	for _, name := range neuroOJWorkerEnv() {
		if v, ok := lookupEnv(name); ok && v != "" {
			set = append(set, name)
		}
	}
	if len(set) > 0 {
		return neuroOJDefaultRedis, "REDIS_URL is not set but " + strings.Join(set, ", ") + " (Neuro OJ's worker settings) are: Neuro OJ's default Redis"
	}
	return "embedded", "neither --broker nor REDIS_URL nor any of Neuro OJ's worker settings is set: the embedded NATS broker"
}

// neuroOJWorkerEnv are the variables of Neuro OJ's judge worker other than
// REDIS_URL, sorted.
func neuroOJWorkerEnv() []string {
	var names []string
	for _, name := range workerEnv {
		if name != "REDIS_URL" && !strings.HasPrefix(name, "TETHER_") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// redactBroker is a broker URL without its password, for the log.
func redactBroker(u string) string {
	if strings.HasPrefix(u, "nats://") || strings.HasPrefix(u, "tls://") {
		return natsq.Redacted(u)
	}
	if u == "embedded" {
		return u
	}
	return redisq.Redacted(u)
}

func openWorkerBroker(ctx context.Context, cmd *cobra.Command, u, workDir string, maxTaskBytes int, metrics *worker.Metrics, log *slog.Logger) (worker.Broker, func(), error) {
	fl := cmd.Flags()
	switch {
	case strings.HasPrefix(u, "redis://") || strings.HasPrefix(u, "rediss://"):
		queue, _ := fl.GetString("queue")
		results, _ := fl.GetString("result-queue")
		secs, _ := fl.GetInt("download-timeout")
		warnSweeper(log, time.Duration(secs)*time.Second)
		b, err := redisq.Open(ctx, redisq.Options{URL: u, Queue: queue, ResultQueue: results, WorkDir: workDir,
			MaxTaskBytes: maxTaskBytes, Log: log, OnFallbackPending: metrics.FallbackPending})
		if err != nil {
			return nil, nil, err
		}
		log.Info("broker", "kind", "redis", "url", redisq.Redacted(u), "queue", queue, "results", results)
		return b, func() { b.Close() }, nil
	case u == "embedded":
		dataDir, _ := fl.GetString("data-dir")
		listen, _ := fl.GetString("listen")
		emb, err := natsq.StartEmbedded(dataDir, listen)
		if err != nil {
			return nil, nil, err
		}
		b, err := natsq.Open(ctx, natsq.Options{URL: emb.URL, Token: emb.Token, Log: log})
		if err != nil {
			emb.Close()
			return nil, nil, err
		}
		log.Info("broker", "kind", "embedded NATS JetStream", "url", emb.URL, "data_dir", dataDir, "token_file", natsq.TokenFile(dataDir))
		return b, func() { b.Close(); emb.Close() }, nil
	case strings.HasPrefix(u, "nats://") || strings.HasPrefix(u, "tls://"):
		b, err := natsq.Open(ctx, natsq.Options{URL: u, Token: os.Getenv("NATS_TOKEN"), Log: log})
		if err != nil {
			return nil, nil, err
		}
		log.Info("broker", "kind", "NATS JetStream", "url", natsq.Redacted(u))
		return b, func() { b.Close() }, nil
	}
	return nil, nil, fmt.Errorf("--broker %q: want redis://HOST:PORT/DB, nats://HOST:PORT or embedded", u)
}

// warnSweeper: Neuro OJ's core requeues a task left in :processing past
// its sweeper timeout, and has no heartbeat to learn that a run goes on.
func warnSweeper(log *slog.Logger, download time.Duration) {
	worst := download + 30*time.Second // package download, then the evaluator's start phase
	if worst >= redisq.SweeperGrace {
		log.Warn("a task can stay in processing past Neuro OJ's sweeper timeout (10 min, or the evaluator's time limit + 2 min): "+
			"the core would requeue it and it would be judged twice (the core keeps the first result); lower SUPPORT_PACKAGE_DOWNLOAD_TIMEOUT",
			"download_timeout", download.String(), "start_timeout", "30s")
	}
}

func checkCPUs(s worker.SlotCPUs) error {
	for _, c := range [][]int{s.Evaluator, s.Solution} {
		if err := sandbox.CheckCPUs(c); err != nil {
			return err
		}
	}
	return nil
}
