import pg from 'pg';
import type { Logger } from 'pino';

/** The channel claims_volume_feed() notifies in every transaction that writes claims. */
export const CLAIM_FEED_CHANNEL = 'claim_changes';

/**
 * Says when the claim change feed may hold something new. ClaimWindows polls the feed at once on a
 * change and only rarely otherwise, while `listening` holds (a change is then sure to be signalled).
 */
export interface FeedSignal {
  readonly listening: boolean;
  /** `callback` runs on every change, and each time listening (re)starts: changes meanwhile were not signalled. */
  onChange(callback: () => void): void;
  start(): void;
  close(): Promise<void>;
}

export interface ClaimFeedListenerOptions {
  /** A direct connection to the primary (LISTEN needs a session of its own: no hot standby, no transaction pooler). */
  url: string;
  connectTimeoutMs: number;
  applicationName: string;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** First delay before connecting again after the connection was lost; doubles up to 30 s. */
  retryMs?: number;
  /** For reads on the session (readOnSession): its statement timeout, and how long the client waits for an answer. */
  reads?: { statementTimeoutMs: number; queryTimeoutMs: number };
}

const MAX_RETRY_MS = 30_000;

/**
 * One dedicated connection that LISTENs on the claim feed's channel, so an idle replica costs the
 * database nothing between changes instead of a poll every second. Reconnects with backoff when the
 * connection is lost; meanwhile `listening` is false and ClaimWindows polls on its own schedule.
 */
export class ClaimFeedListener implements FeedSignal {
  private client: pg.Client | undefined;
  private callback: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  private connected = false;

  constructor(private readonly options: ClaimFeedListenerOptions) {}

  get listening(): boolean {
    return this.connected;
  }

  /**
   * Runs `read` on the direct session while it listens (undefined while the connection is down, or
   * without `reads`): every request that reads claim volumes waits for a claim-feed read, which there
   * skips a transaction pooler's hop and the pool. A read that fails or gets no answer within
   * `reads.queryTimeoutMs` (a peer that vanished) closes the session, which then reconnects.
   */
  readOnSession<T>(read: (session: pg.Client) => Promise<T>): Promise<T> | undefined {
    const client = this.connected ? this.client : undefined;
    const { reads } = this.options;
    if (client === undefined || reads === undefined) return undefined;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('the claim feed session gave no answer in time')), reads.queryTimeoutMs);
      const fail = (error: unknown) => {
        clearTimeout(timer);
        this.lost(client, error);
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      read(client).then((value) => {
        clearTimeout(timer);
        resolve(value);
      }, fail);
    });
  }

  onChange(callback: () => void): void {
    this.callback = callback;
  }

  start(): void {
    if (this.closed || this.client || this.timer) return;
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.connected = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.timer = undefined;
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      application_name: this.options.applicationName,
      keepAlive: true,
    });
    this.client = client;
    client.on('notification', () => this.callback?.());
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      const { reads } = this.options;
      if (reads !== undefined) {
        await client.query(`SET statement_timeout = ${Math.trunc(reads.statementTimeoutMs)}`);
        // Reads here are named statements polled thousands of times a second, whose plan does not
        // depend on their parameters (a snapshot): planned once, never again per call.
        await client.query('SET plan_cache_mode = force_generic_plan');
      }
      await client.query(`LISTEN ${CLAIM_FEED_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.closed || this.client !== client) return;
    if (this.failures > 0) this.options.logger.info('listening for claim changes again');
    this.failures = 0;
    this.connected = true;
    this.callback?.();
  }

  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.connected = false;
    client.end().catch(() => undefined);
    if (this.closed) return;
    // Logged once per outage; the windows poll on their own schedule meanwhile.
    if (this.failures === 0) this.options.logger.warn({ err: error }, 'claim change listener lost its connection; polling until it is back');
    const delay = Math.min(MAX_RETRY_MS, (this.options.retryMs ?? 1000) * 2 ** this.failures);
    this.failures++;
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }
}
