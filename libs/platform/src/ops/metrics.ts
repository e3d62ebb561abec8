import { Inject, Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BusMetricsHook, BusTransportErrorKind } from '../bus/bus-client';
import { OPS_OPTIONS, type ResolvedOpsOptions } from './ops.options';

/** Prefix of every metric name of this project (default process metrics included). */
export const METRIC_PREFIX = 'agent_memory_';

/**
 * Histogram buckets for operation latency, seconds: 5 ms (a cache hit, a bus hop in process) up to
 * 30 s (the default bus request timeout, `BUS_REQUEST_TIMEOUT_MS`), so a timed-out request still lands
 * in a finite bucket.
 */
export const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One row of a queue-depth collector: how many jobs of `queue` are in `state` (`waiting`, `active`, `failed`, ...). */
export interface QueueDepth {
  queue: string;
  state: string;
  count: number;
}

/** Reads the current job counts; registered with {@link Metrics.registerQueueDepth}, called on every scrape. */
export type QueueDepthCollector = () => Promise<QueueDepth[]>;

/** Outcome label of a handled bus message. */
export type BusOutcome = 'ok' | 'error';

/**
 * The Prometheus metrics of one process: one prom-client {@link Registry} (not the library's
 * global one, so several apps in one test process stay apart) with the default process metrics under
 * `agent_memory_`, every series labelled `service=<process>`, and the project's instruments:
 *
 * - `agent_memory_http_requests_total{method,route,status}` and
 *   `agent_memory_http_request_duration_seconds{method,route}` (HTTP, filled by the ops Fastify hook);
 * - `agent_memory_bus_messages_total{subject,outcome}` and `agent_memory_bus_handler_duration_seconds{subject}`
 *   (handled bus messages, filled by `BusMetricsInterceptor`; outcome `ok` | `error`);
 * - `agent_memory_bus_errors_total{subject,kind}` (transport failures on the sending side, filled by
 *   `BusClient` through {@link BusMetricsHook}; kind `timeout` | `no_responders` | `unavailable` | `malformed_reply`);
 * - `agent_memory_queue_jobs{queue,state}` (gauge read from the registered queue-depth collectors at scrape time).
 */
@Injectable()
export class Metrics implements BusMetricsHook {
  /** The registry `/metrics` serves. */
  readonly registry = new Registry();
  private readonly log = new Logger('Metrics');
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route'>;
  private readonly busMessages: Counter<'subject' | 'outcome'>;
  private readonly busDuration: Histogram<'subject'>;
  private readonly busErrors: Counter<'subject' | 'kind'>;
  private readonly queueCollectors: QueueDepthCollector[] = [];

  constructor(@Inject(OPS_OPTIONS) options: Pick<ResolvedOpsOptions, 'service'>) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ service: options.service });
    collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    this.httpRequests = new Counter({ name: `${METRIC_PREFIX}http_requests_total`, help: 'HTTP requests answered, by method, route template and status code.', labelNames: ['method', 'route', 'status'], registers });
    this.httpDuration = new Histogram({ name: `${METRIC_PREFIX}http_request_duration_seconds`, help: 'Time from receiving an HTTP request to answering it, seconds.', labelNames: ['method', 'route'], buckets: LATENCY_BUCKETS_SECONDS, registers });
    this.busMessages = new Counter({ name: `${METRIC_PREFIX}bus_messages_total`, help: 'Bus requests and events handled by this process, by subject and outcome (ok|error).', labelNames: ['subject', 'outcome'], registers });
    this.busDuration = new Histogram({ name: `${METRIC_PREFIX}bus_handler_duration_seconds`, help: 'Time a bus handler took, seconds.', labelNames: ['subject'], buckets: LATENCY_BUCKETS_SECONDS, registers });
    this.busErrors = new Counter({ name: `${METRIC_PREFIX}bus_errors_total`, help: 'Bus transport failures seen by the sender (timeout, no_responders, unavailable, malformed_reply), by subject.', labelNames: ['subject', 'kind'], registers });
    const collectors = this.queueCollectors;
    const log = this.log;
    new Gauge({
      name: `${METRIC_PREFIX}queue_jobs`,
      help: 'Jobs per queue and state, read at scrape time.',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const collect of collectors) {
          try {
            for (const row of await collect()) this.set({ queue: row.queue, state: row.state }, row.count);
          } catch (err) {
            // One failing queue must not fail the whole scrape.
            log.warn(`queue depth collector failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
      },
    });
  }

  /** Content type of {@link text} (Prometheus text exposition format). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric of this process in the Prometheus text format (what `GET /metrics` answers). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Counts one answered HTTP request; `route` is the route template (`/api/v1/records/:recordId`), never the raw URL. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
  }

  /** Counts one handled bus message (request or event) and its handler time in seconds. */
  observeBusMessage(subject: string, outcome: BusOutcome, seconds: number): void {
    this.busMessages.inc({ subject, outcome });
    this.busDuration.observe({ subject }, seconds);
  }

  /** {@link BusMetricsHook}: counts one transport failure of a request or event sent on `subject`. */
  busError(subject: string, kind: BusTransportErrorKind): void {
    this.busErrors.inc({ subject, kind });
  }

  /**
   * Adds a queue-depth collector (e.g. counts from the JobQueue); it is awaited on every scrape and its
   * rows become `agent_memory_queue_jobs{queue,state}`. A collector that throws is logged and skipped.
   */
  registerQueueDepth(collect: QueueDepthCollector): void {
    this.queueCollectors.push(collect);
  }
}
