package worker

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tether-dev/tether/judge"
)

// Metrics are the worker's Prometheus metrics, in a registry of their own.
// A nil *Metrics records nothing.
type Metrics struct {
	Registry     *prometheus.Registry
	runs         *prometheus.CounterVec
	runSeconds   prometheus.Histogram
	inFlight     prometheus.Gauge
	pullWait     prometheus.Histogram
	cacheEvents  *prometheus.CounterVec
	cacheBytes   prometheus.Gauge
	fallback     prometheus.Gauge
	redeliveries prometheus.Counter
	brokerErrors prometheus.Counter
	slots        prometheus.Gauge
	run          runMetrics // fed by the runs' events (runmetrics.go)
}

// NewMetrics registers the worker's metrics.
func NewMetrics(slots int) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_runs_total",
			Help: "Tasks judged, by result status."}, []string{"status"}),
		runSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tether_worker_run_seconds",
			Help: "Time from a task's start to its result, package fetch included.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tether_worker_in_flight", Help: "Tasks being judged now."}),
		pullWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tether_worker_pull_wait_seconds",
			Help: "Time a free slot waited for its next task.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}),
		cacheEvents: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_package_cache_events_total",
			Help: "Support package cache events: hit, miss, store, evict, corrupt."}, []string{"kind"}),
		cacheBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tether_worker_package_cache_bytes", Help: "Bytes held by the support package cache."}),
		fallback: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tether_worker_fallback_results_pending",
			Help: "Results kept on disk because the broker did not take them, waiting for replay."}),
		redeliveries: prometheus.NewCounter(prometheus.CounterOpts{Name: "tether_worker_redeliveries_total",
			Help: "Tasks pulled that had been delivered before."}),
		brokerErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "tether_worker_broker_errors_total",
			Help: "Pulls that failed because the broker could not be reached."}),
		slots: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tether_worker_slots", Help: "Slots of this worker."}),
		run:   newRunMetrics(),
	}
	m.Registry.MustRegister(m.collectors()...)
	m.slots.Set(float64(slots))
	return m
}

func (m *Metrics) collectors() []prometheus.Collector {
	return append([]prometheus.Collector{m.runs, m.runSeconds, m.inFlight, m.pullWait, m.cacheEvents, m.cacheBytes,
		m.fallback, m.redeliveries, m.brokerErrors, m.slots}, m.run.collectors()...)
}

// Handler serves /metrics and /healthz.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	return mux
}

// CacheEvent records a support package cache event; bytes is the cache's
// size after it.
func (m *Metrics) CacheEvent(kind string, totalBytes int64) {
	if m == nil {
		return
	}
	m.cacheEvents.WithLabelValues(kind).Inc()
	m.cacheBytes.Set(float64(totalBytes))
}

// FallbackPending sets the number of results waiting on disk for replay.
func (m *Metrics) FallbackPending(n int) {
	if m != nil {
		m.fallback.Set(float64(n))
	}
}

func (m *Metrics) pulled(wait time.Duration, redelivered int) {
	if m == nil {
		return
	}
	m.pullWait.Observe(wait.Seconds())
	if redelivered > 0 {
		m.redeliveries.Inc()
	}
}

func (m *Metrics) brokerError() {
	if m != nil {
		m.brokerErrors.Inc()
	}
}

func (m *Metrics) started() {
	if m != nil {
		m.inFlight.Inc()
	}
}

func (m *Metrics) finished() {
	if m != nil {
		m.inFlight.Dec()
	}
}

func (m *Metrics) observe(status string, d time.Duration) {
	if m == nil {
		return
	}
	if !judge.Status(status).Known() {
		// An evaluator's own status: any identifier, so not a label of its
		// own (one per name would grow without bound).
		status = "other"
	}
	m.runs.WithLabelValues(status).Inc()
	m.runSeconds.Observe(d.Seconds())
}
