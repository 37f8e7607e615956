package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/worker/natsq"
	"github.com/tether-dev/tether/worker/redisq"
)

// resultOptions are tether result's flags.
type resultOptions struct {
	Broker  string // redis://..., nats://... or embedded; "": chooseBroker decides
	JSON    bool
	Timeout time.Duration // how long to try to reach the broker
	// brokerQueues' --queue is unused here, and hidden.
	brokerQueues
}

func newResultCmd() *cobra.Command {
	o := &resultOptions{}
	cmd := &cobra.Command{
		Use:   "result SUBMISSION_ID",
		Short: "Print the result of a queued submission, by its submission_id",
		Long: `result fetches the result of a submission that tether submit (or Neuro OJ's
core) queued, by its submission_id, and prints it as tether submit --wait does.

On NATS (the embedded broker and nats://) the broker keeps every result for
7 days in its file store, across restarts of the broker and the workers; the
latest result of the id is printed (after a rejudge, the rejudge's). On Redis
the result list is Neuro OJ's core's: a result can be read only until the core
(or tether submit --wait) takes it from RESULT_QUEUE.

Reading a result takes the same credentials as queueing a task: the embedded
broker's token file under --data-dir (mode 0600), NATS_TOKEN, or the Redis
URL's password.`,
		Args: exactArgs(1, "result takes one SUBMISSION_ID", "tether result tether-3f2a9c0d1e7b5a46"),
		RunE: func(cmd *cobra.Command, args []string) error { return runResult(cmd, o, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Broker, "broker", "", "queue: redis://HOST:PORT/DB, nats://HOST:PORT, or embedded (the local worker's; env REDIS_URL)")
	f.BoolVar(&o.JSON, "json", false, "print the result object as JSON")
	o.brokerQueues.addFlags(f)
	f.MarkHidden("queue")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "how long to try to reach the broker")
	return cmd
}

func runResult(cmd *cobra.Command, o *resultOptions, id string) error {
	if err := applyEnv(cmd, queueEnv); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), o.Timeout)
	defer cancel()
	u := brokerURL(o.Broker)
	var raw []byte
	switch {
	case strings.HasPrefix(u, "redis://") || strings.HasPrefix(u, "rediss://"):
		results := o.ResultQueue
		c, err := newRedis(u)
		if err != nil {
			return err
		}
		defer c.Close()
		items, err := c.LRange(ctx, results, 0, -1).Result()
		if err != nil {
			return fmt.Errorf("cannot read %s at %s: %v", results, redisq.Redacted(u), err)
		}
		found, ok := redisResultOf(items, id)
		if !ok {
			return fmt.Errorf("no result for %s in %s at %s (on Redis a result stays only until Neuro OJ's core takes it; is the id right?)", id, results, redisq.Redacted(u))
		}
		raw = []byte(found)
	case u == "embedded" || strings.HasPrefix(u, "nats://") || strings.HasPrefix(u, "tls://"):
		b, addr, err := connectNATS(ctx, &o.brokerQueues, u)
		if err != nil {
			return err
		}
		defer b.Close()
		raw, err = b.FetchResult(ctx, id)
		if errors.Is(err, natsq.ErrNoResult) {
			return fmt.Errorf("no result for %s at %s: not judged yet, or older than %d days (results are kept that long); is the id right?", id, natsq.Redacted(addr), natsq.ResultRetention/(24*time.Hour))
		}
		if err != nil {
			return fmt.Errorf("fetch the result of %s at %s: %v", id, natsq.Redacted(addr), err)
		}
	default:
		return fmt.Errorf("--broker %q: want redis://HOST:PORT/DB, nats://HOST:PORT or embedded", u)
	}
	return printQueuedResult(cmd.OutOrStdout(), raw, o.JSON)
}
