import { Counter, Histogram, type Registry } from 'prom-client';

// Registered on a registry owned by one ingress app (never the global one), so several apps can live in
// one process, as they do in tests.

export type IngressMetrics = ReturnType<typeof createIngressMetrics>;

export function createIngressMetrics(registry: Registry) {
  const registers = [registry];
  return {
    deliveriesReceived: new Counter({
      name: 'booksync_ingress_deliveries_received_total',
      help: 'Webhook deliveries that reached POST /webhooks/service.',
      registers,
    }),
    deliveriesVerified: new Counter({
      name: 'booksync_ingress_deliveries_verified_total',
      help: 'Deliveries accepted as authentic: mode is signed, or unsigned for a legacy subscription.',
      labelNames: ['mode'] as const,
      registers,
    }),
    deliveriesRejected: new Counter({
      name: 'booksync_ingress_deliveries_rejected_total',
      help: 'Deliveries answered 4xx, by reason code (signature, body, object id, Temporal refusal, size).',
      labelNames: ['reason'] as const,
      registers,
    }),
    signalsSent: new Counter({
      name: 'booksync_ingress_signals_sent_total',
      help: 'Events accepted by Temporal as a signalWithStart, by workflow type.',
      labelNames: ['workflow_type'] as const,
      registers,
    }),
    signalFailures: new Counter({
      name: 'booksync_ingress_signal_failures_total',
      help: 'Events Temporal could not accept (answered 503 so the sender retries), by workflow type.',
      labelNames: ['workflow_type'] as const,
      registers,
    }),
    unroutedEvents: new Counter({
      name: 'booksync_ingress_unrouted_events_total',
      help: 'Verified events with a category no workflow handles; acknowledged and recorded, not signalled.',
      registers,
    }),
    requestDuration: new Histogram({
      name: 'booksync_ingress_request_duration_seconds',
      help: 'HTTP request duration, by method, route and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };
}
