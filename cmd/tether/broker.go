package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/natsq"
	"github.com/tether-dev/tether/worker/redisq"
)

// neuroOJDefaultRedis is where Neuro OJ's judge worker looks for Redis when
// REDIS_URL is not set.
const neuroOJDefaultRedis = "redis://127.0.0.1/"

// brokerURL is the broker a worker uses, and tether submit with it, given
// the command line's --broker.
func brokerURL(broker string) string {
	u, _ := chooseBroker(broker, os.LookupEnv)
	return u
}

// chooseBroker is the broker and why: broker (the command line's --broker),
// else REDIS_URL, else Neuro OJ's default Redis when any other variable of
// Neuro OJ's worker is set (a Neuro OJ deployment), else the embedded NATS
// broker.
func chooseBroker(broker string, lookupEnv func(string) (string, bool)) (u, why string) {
	if broker != "" {
		return broker, "--broker"
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

func openWorkerBroker(ctx context.Context, o *workerOptions, u string, metrics *worker.Metrics, log *slog.Logger) (worker.Broker, func(), error) {
	switch {
	case strings.HasPrefix(u, "redis://") || strings.HasPrefix(u, "rediss://"):
		queue, results := o.Queue, o.ResultQueue
		warnSweeper(log, time.Duration(o.DownloadTimeout)*time.Second)
		b, err := redisq.Open(ctx, redisq.Options{URL: u, Queue: queue, ResultQueue: results, WorkDir: o.WorkDir,
			MaxTaskBytes: o.MaxTaskMB << 20, Log: log, OnFallbackPending: metrics.FallbackPending})
		if err != nil {
			return nil, nil, err
		}
		log.Info("broker", "kind", "redis", "url", redisq.Redacted(u), "queue", queue, "results", results)
		return b, func() { b.Close() }, nil
	case u == "embedded":
		dataDir := o.DataDir
		emb, err := natsq.StartEmbedded(dataDir, o.Listen)
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

// brokerQueues are the flags of a command that reaches a worker's broker
// for results: Redis's lists, and where the embedded broker keeps its token.
type brokerQueues struct {
	Queue       string // Redis list of tasks
	ResultQueue string // Redis list of results
	DataDir     string // the embedded broker's data dir
	Listen      string // where the embedded broker listens
}

func (o *brokerQueues) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Queue, "queue", redisq.DefaultQueue, "Redis list of tasks (env JUDGE_QUEUE)")
	f.StringVar(&o.ResultQueue, "result-queue", redisq.DefaultResultQueue, "Redis list of results (env RESULT_QUEUE)")
	f.StringVar(&o.DataDir, "data-dir", defaultDataDir(), "the embedded broker's data dir (its token is read from there)")
	f.StringVar(&o.Listen, "listen", natsq.DefaultListen, "where the embedded broker listens")
}

// queueEnv names the environment variables behind --queue and
// --result-queue (applyEnv), as for tether worker.
var queueEnv = map[string]string{"queue": "JUDGE_QUEUE", "result-queue": "RESULT_QUEUE"}

// newRedis is a client of the Redis at u.
func newRedis(u string) (*redis.Client, error) {
	opts, err := redis.ParseURL(u)
	if err != nil {
		return nil, fmt.Errorf("--broker %s: %v", redisq.Redacted(u), err)
	}
	return redis.NewClient(opts), nil
}

// redisResultOf is the newest result of submission id among the items of
// Neuro OJ's result list (the worker pushes on the left: newest first).
func redisResultOf(items []string, id string) (string, bool) {
	for _, raw := range items {
		if got, ok := worker.ResultSubmissionID([]byte(raw)); ok && got == id {
			return raw, true
		}
	}
	return "", false
}

// connectNATS connects to the NATS broker u, or to the embedded one of
// --data-dir with the token kept there (mode 0600): reading results takes
// the same credentials as queueing tasks.
func connectNATS(ctx context.Context, q *brokerQueues, u string) (*natsq.Broker, string, error) {
	token := os.Getenv("NATS_TOKEN")
	if u == "embedded" {
		tok, err := natsq.ReadToken(q.DataDir)
		if err != nil {
			return nil, u, err
		}
		u, token = "nats://"+q.Listen, tok
	}
	b, err := natsq.Connect(ctx, natsq.Options{URL: u, Token: token})
	return b, u, err
}
