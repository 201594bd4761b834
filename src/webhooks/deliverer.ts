import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Poller } from '../poller.js';
import type { EventPosition } from '../repositories/events.repository.js';
import { type LeasedEndpoint, PAGE_SIZE, type WebhookDeliveryRepository } from '../repositories/webhooks.repository.js';
import { nextAttemptDelaySeconds } from './backoff.js';
import { eventMessage, isPruned, refetchMessage, type WebhookMessage } from './messages.js';
import type { Config } from '../config.js';
import { SecretBox } from './secret-box.js';
import { DeliveryError, type WebhookResponse, WebhookSender } from './sender.js';
import { webhookHeaders } from './signing.js';

/** What sends a message: WebhookSender, or a test's. */
export interface MessageSender {
  post(url: string, headers: Record<string, string>, body: string): Promise<WebhookResponse>;
  close(): void;
}

export interface DelivererLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface WebhookDelivererOptions {
  repository: WebhookDeliveryRepository;
  secretBox: SecretBox;
  sender: MessageSender;
  /** Endpoints this process sends to at once. */
  concurrency: number;
  pollMs: number;
  timeoutMs: number;
  /** Seconds an endpoint may fail every attempt before it is disabled. */
  disableAfterSeconds: number;
  /** Seconds events wait for an endpoint that has not had them (written to the database at start). */
  retentionSeconds: number;
  logger: DelivererLog;
  /** Whether the database is ready (migrations applied): no round reads it before (default: always). */
  isReady?: () => boolean;
  /** Names this process in the leases it holds (default: host, pid and a random part). */
  owner?: string;
  random?: () => number;
}

interface FailureState {
  failures: number;
  failingSince: Date | null;
}

/** Seconds a lease outlasts the time-out. */
const LEASE_MARGIN_SECONDS = 10;

/**
 * How often, at most, a visit writes the endpoint's position while messages go through: what a
 * process that dies mid-visit sends again. Well inside the lease, which each write renews.
 */
export const WRITE_EVERY_MS = 1_000;

/** What the receiver has accepted in this visit: where it stands, and the last message's id. */
interface Accepted {
  position: EventPosition;
  deliveredId: string | undefined;
}

/** Messages by outcome, and attempts: what /metrics reports. */
export interface DeliveryCounts {
  outcomes: { delivered: number; rejected: number; unreachable: number };
  attempts: number;
  disabled: number;
}

/**
 * Delivers the event log to the webhook endpoints: each round leases the endpoints that are due and
 * have events (as many as it has free places), and sends each one's events in commit order, one at
 * a time, moving its position past the events its receiver accepted (2xx). A failure records the
 * attempt and puts the endpoint off (backoff, or its Retry-After); 410, or failing for longer than
 * `disableAfterSeconds`, disables it. At least once: the position is written when a visit ends and
 * at most every WRITE_EVERY_MS during one, so a process that dies mid-visit leaves the messages
 * accepted since its last write to be sent again, with the same webhook-ids.
 */
export class WebhookDeliverer {
  readonly counts: DeliveryCounts = { outcomes: { delivered: 0, rejected: 0, unreachable: 0 }, attempts: 0, disabled: 0 };
  private readonly poller: Poller;
  private readonly owner: string;
  private readonly leaseSeconds: number;
  private readonly working = new Set<Promise<void>>();
  private retentionWritten = false;
  private closing = false;
  private lastPrune = 0;

  constructor(private readonly options: WebhookDelivererOptions) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    // Longer than one message can take plus the write after it (each write renews it), so that a
    // live deliverer keeps its lease; short, so that a dead one's endpoints go on soon.
    this.leaseSeconds = Math.ceil(options.timeoutMs / 1000) + LEASE_MARGIN_SECONDS;
    this.poller = new Poller({
      round: () => this.round(),
      pause: () => options.pollMs,
      onError: (error, again) => {
        if (!again) options.logger.error({ err: error }, 'webhook delivery could not read its endpoints; it tries again');
      },
    });
  }

  start(): void {
    this.poller.start();
  }

  /** Stops leasing, lets the messages in flight finish (each within the time-out), and closes the connections. */
  async close(): Promise<void> {
    this.closing = true;
    await this.poller.close();
    await Promise.all(this.working);
    this.options.sender.close();
  }

  /** Endpoints being sent to now. */
  get busy(): number {
    return this.working.size;
  }

  private async round(): Promise<void> {
    if (this.options.isReady && !this.options.isReady()) return;
    if (!this.retentionWritten) {
      await this.options.repository.setRetention(this.options.retentionSeconds);
      this.retentionWritten = true;
    }
    if (Date.now() - this.lastPrune > 3_600_000) {
      this.lastPrune = Date.now();
      await this.options.repository.pruneAttempts();
    }
    const free = this.options.concurrency - this.working.size;
    if (free <= 0 || this.closing) return;
    const endpoints = await this.options.repository.lease(this.owner, free, this.leaseSeconds);
    for (const endpoint of endpoints) {
      const work = this.deliver(endpoint)
        .catch(async (error: unknown) => {
          this.options.logger.error({ err: error, endpoint: endpoint.id }, 'webhook delivery to an endpoint failed; it is retried');
          await this.options.repository.release(endpoint.id, this.owner).catch(() => undefined);
        })
        .finally(() => {
          this.working.delete(work);
        });
      this.working.add(work);
    }
  }

  /**
   * Sends the endpoint what it has not had, until it has it all, a send fails, or the process
   * closes. The position is written at most every WRITE_EVERY_MS while messages go through (each
   * write renews the lease), and when the visit ends: with the failure, or as the lease is given up.
   */
  private async deliver(endpoint: LeasedEndpoint): Promise<void> {
    const { repository, secretBox } = this.options;
    const secrets = [secretBox.open(endpoint.secret), ...(endpoint.previousSecret ? [secretBox.open(endpoint.previousSecret)] : [])];
    // What the receiver has: the position after the last message it accepted, and that message's id.
    const accepted: Accepted = { position: endpoint.cursor, deliveredId: undefined };
    // Failures at the message it is at, and since when: both start again once a message goes through.
    const state = { failures: endpoint.attempts, failingSince: endpoint.failingSince };
    let written = Date.now();
    /** One message; false: the visit ends (the send failed and was recorded, or the lease is another's). */
    const deliverOne = async (message: WebhookMessage): Promise<boolean> => {
      if (!(await this.send(endpoint, secrets, message, state, accepted))) return false;
      accepted.position = message.position;
      accepted.deliveredId = message.id;
      if (Date.now() - written < WRITE_EVERY_MS) return true;
      written = Date.now();
      // Lost the lease (this process stalled past it): the endpoint is another's now.
      return repository.advance(endpoint.id, this.owner, accepted.position, accepted.deliveredId, this.leaseSeconds);
    };
    // The first page came with the lease.
    let page = endpoint.page;
    for (let first = true; !this.closing; first = false) {
      if (!first) page = await repository.pending(endpoint.id, accepted.position);
      if (isPruned(accepted.position, page.prunedThrough)) {
        if (!(await deliverOne(refetchMessage(page.prunedThrough, new Date())))) return;
        continue;
      }
      for (const event of page.events) {
        if (this.closing) break;
        if (!(await deliverOne(eventMessage(event)))) return;
      }
      if (this.closing) break;
      if (page.events.length < PAGE_SIZE) {
        // Everything through the head read is passed: the events the filters left out too.
        accepted.position = page.through;
        break;
      }
    }
    await repository.advance(endpoint.id, this.owner, accepted.position, accepted.deliveredId, null);
  }

  /** One attempt at one message: true when the receiver accepted it; otherwise the failure is recorded (with what was accepted before it) and the lease given up. */
  private async send(endpoint: LeasedEndpoint, secrets: string[], message: WebhookMessage, state: FailureState, accepted: Accepted): Promise<boolean> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secrets, message.id, timestamp, message.body);
    this.counts.attempts++;
    let response: WebhookResponse | undefined;
    let error: string;
    try {
      response = await this.options.sender.post(endpoint.url, headers, message.body);
      if (response.status >= 200 && response.status < 300) {
        this.counts.outcomes.delivered++;
        state.failures = 0;
        state.failingSince = null;
        return true;
      }
      this.counts.outcomes.rejected++;
      error = `answered ${response.status}`;
    } catch (failure) {
      if (!(failure instanceof DeliveryError)) throw failure;
      this.counts.outcomes.unreachable++;
      error = failure.message;
    }
    await this.recordFailure(endpoint, message, state, accepted, response, error);
    return false;
  }

  private async recordFailure(
    endpoint: LeasedEndpoint,
    message: WebhookMessage,
    state: FailureState,
    accepted: Accepted,
    response: WebhookResponse | undefined,
    error: string,
  ): Promise<void> {
    const now = Date.now();
    const failingSince = state.failingSince?.getTime() ?? now;
    const failures = state.failures + 1;
    let disable: string | undefined;
    if (response?.status === 410) disable = 'the endpoint answered 410 Gone';
    else if (now - failingSince >= this.options.disableAfterSeconds * 1000) {
      disable = `every attempt failed since ${new Date(failingSince).toISOString()} (WEBHOOK_DISABLE_AFTER)`;
    }
    const delay = nextAttemptDelaySeconds(failures, response?.retryAfterSeconds, this.options.random);
    const nextAttemptAt = disable === undefined ? new Date(now + delay * 1000) : undefined;
    await this.options.repository.fail(
      endpoint.id,
      this.owner,
      { eventId: message.id, attempts: failures, failingSince: new Date(failingSince), status: response?.status ?? null, error, nextAttemptAt, disable },
      accepted,
    );
    if (disable !== undefined) {
      this.counts.disabled++;
      // The origin alone: a URL's path or query may hold the receiver's own token.
      this.options.logger.warn(
        { endpoint: endpoint.id, origin: new URL(endpoint.url).origin, reason: disable },
        'webhook endpoint disabled; npm run webhooks -- enable <id> resumes it where it stopped',
      );
    }
  }
}

/** The deliverer as the server runs it, from the WEBHOOK_* settings; null without WEBHOOK_SECRET_KEY or with WEBHOOKS_ENABLED off. */
export function createWebhookDeliverer(
  config: Pick<
    Config,
    'WEBHOOKS_ENABLED' | 'WEBHOOK_SECRET_KEY' | 'WEBHOOK_ALLOW_PRIVATE' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_POLL_MS' | 'WEBHOOK_CONCURRENCY' | 'WEBHOOK_DISABLE_AFTER' | 'WEBHOOK_MAX_RETENTION'
  >,
  { repository, logger, isReady }: Pick<WebhookDelivererOptions, 'repository' | 'logger' | 'isReady'>,
): WebhookDeliverer | null {
  if (!config.WEBHOOKS_ENABLED || config.WEBHOOK_SECRET_KEY === undefined) return null;
  return new WebhookDeliverer({
    repository,
    secretBox: new SecretBox(config.WEBHOOK_SECRET_KEY),
    sender: new WebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }),
    concurrency: config.WEBHOOK_CONCURRENCY,
    pollMs: config.WEBHOOK_POLL_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER,
    retentionSeconds: config.WEBHOOK_MAX_RETENTION,
    logger,
    isReady,
  });
}
