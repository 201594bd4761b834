import { Counter, Gauge, type Registry } from 'prom-client';
import type { WebhookDeliveryRepository } from '../repositories/webhooks.repository.js';
import type { WebhookDeliverer } from '../webhooks/deliverer.js';
import { countedByLabel } from './metrics.js';

/** Deliveries by outcome, attempts, each endpoint's lag and the disabled endpoints, on /metrics. */
export function registerWebhookMetrics(registry: Registry, deliverer: WebhookDeliverer, repository: WebhookDeliveryRepository): void {
  countedByLabel(
    registry,
    'webhook_deliveries_total',
    'Webhook messages sent, by outcome: delivered (2xx), rejected (another status; retried, or disabled on 410), unreachable (no answer: refused address, connection error, time-out)',
    'outcome',
    () => ({ ...deliverer.counts.outcomes }),
  );
  let attempts = deliverer.counts.attempts;
  new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook messages sent, first attempts and retries',
    registers: [registry],
    collect() {
      this.inc(deliverer.counts.attempts - attempts);
      attempts = deliverer.counts.attempts;
    },
  });
  new Gauge({
    name: 'webhook_endpoint_lag_seconds',
    help: 'Per enabled webhook endpoint: age of the oldest event it has not had (0: it has them all)',
    labelNames: ['endpoint'],
    registers: [registry],
    async collect() {
      // The database unreadable: the last values stand, and the rest of /metrics still answers.
      const lags = await repository.lag().catch(() => undefined);
      if (!lags) return;
      this.reset();
      for (const { id, seconds } of lags) this.set({ endpoint: String(id) }, seconds);
    },
  });
  new Gauge({
    name: 'webhook_endpoints_disabled',
    help: 'Webhook endpoints disabled (410 Gone, failing longer than WEBHOOK_DISABLE_AFTER, or by the operator)',
    registers: [registry],
    async collect() {
      const count = await repository.disabledCount().catch(() => undefined);
      if (count !== undefined) this.set(count);
    },
  });
}
