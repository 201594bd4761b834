import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { EventPosition } from './events.repository.js';

/** What an endpoint takes of the event log: an absent field takes every value, as GET /events' parameters. */
export interface WebhookFilters {
  types: string[] | null;
  chainIds: number[] | null;
  campaignIds: string[] | null;
  claimant: string | null;
}

/** An endpoint as the operator's command line shows it: never its secret. */
export interface WebhookEndpointSummary extends WebhookFilters {
  id: number;
  url: string;
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  cursor: EventPosition;
  failingSince: Date | null;
  attempts: number;
  nextAttemptAt: Date;
  lastDeliveredAt: Date | null;
  lastDeliveredId: string | null;
  rotatingUntil: Date | null;
  createdAt: Date;
}

/** An endpoint a deliverer holds the lease of: what it needs to send its events. */
export interface LeasedEndpoint {
  id: number;
  url: string;
  /** Sealed (SecretBox). */
  secret: string;
  /** Sealed, while it still signs too. */
  previousSecret: string | null;
  cursor: EventPosition;
  failingSince: Date | null;
  attempts: number;
  /** Its first page of events after `cursor`, read with the lease. */
  page: PendingPage;
}

/** Events of an endpoint after a position, as the lease and `pending` read them. */
export interface PendingPage {
  events: WebhookEvent[];
  /** The last position read through: the last event's when the page is full, else the head (events the filters left out are passed too). */
  through: EventPosition;
  /** Events through this commit are deleted: an endpoint before it gets a refetch first. */
  prunedThrough: number;
}

/** An event of the log as a webhook carries it. */
export interface WebhookEvent extends EventPosition {
  type: string;
  /** ISO 8601, UTC. */
  committedAt: string;
  /** The event's JSON, as GET /events sends it. */
  data: string;
}

export interface WebhookAttempt {
  eventId: string;
  attemptedAt: Date;
  status: number | null;
  error: string;
  nextAttemptAt: Date | null;
}

/** A failure the deliverer records. */
export interface FailedAttempt {
  eventId: string;
  /** Failed attempts at this message so far, this one included, and since when every attempt failed. */
  attempts: number;
  failingSince: Date;
  status: number | null;
  error: string;
  /** Undefined: the endpoint is disabled with `disable` as its reason. */
  nextAttemptAt: Date | undefined;
  disable?: string;
}

const SUMMARY = sql.raw(`id, url, description, types, chain_ids AS "chainIds", campaign_ids AS "campaignIds", claimant, enabled,
  disabled_reason AS "disabledReason", disabled_at AS "disabledAt", cursor_seq::float8 AS "cursorSeq", cursor_id::float8 AS "cursorId",
  failing_since AS "failingSince", attempts, next_attempt_at AS "nextAttemptAt", last_delivered_at AS "lastDeliveredAt",
  last_delivered_id AS "lastDeliveredId", CASE WHEN previous_secret_until > now() THEN previous_secret_until END AS "rotatingUntil",
  created_at AS "createdAt"`);

type SummaryRow = Omit<WebhookEndpointSummary, 'cursor'> & { cursorSeq: number; cursorId: number };
/** A timestamptz as the driver hands it over (text or Date, depending on the driver), as a Date. */
const dateOf = <T extends Date | null>(value: T | string): T => (value === null || value instanceof Date ? value : new Date(value)) as T;
const summaryOf = ({ cursorSeq, cursorId, ...row }: SummaryRow): WebhookEndpointSummary => ({
  ...row,
  disabledAt: dateOf(row.disabledAt),
  failingSince: dateOf(row.failingSince),
  nextAttemptAt: dateOf(row.nextAttemptAt),
  lastDeliveredAt: dateOf(row.lastDeliveredAt),
  rotatingUntil: dateOf(row.rotatingUntil),
  createdAt: dateOf(row.createdAt),
  cursor: { seq: cursorSeq, id: cursorId },
});

/** The position after every event committed so far: where a new endpoint starts. */
const HEAD = sql`(SELECT coalesce(max(seq), 0) FROM event_commits)`;
/** Events read for an endpoint at a time. */
export const PAGE_SIZE = 100;

/** An id after every event of a transaction (frames.ts' WHOLE_TRANSACTION). */
const WHOLE_TRANSACTION = Number.MAX_SAFE_INTEGER;

/**
 * Whether endpoint `w` takes event `e`: the filters of GET /events. A refetch (a bulk write) goes to
 * every endpoint, as to every stream, whatever its filters.
 */
const TAKES = sql.raw(`(e.type = 'refetch' OR (
       (w.types IS NULL OR e.type = ANY(w.types))
   AND (w.chain_ids IS NULL OR e.chain_id = ANY(w.chain_ids))
   AND (w.campaign_ids IS NULL OR e.campaign_id = ANY(w.campaign_ids))
   AND (w.claimant IS NULL OR e.claimant = w.claimant)))`);

/** Whether endpoint `w` is to be sent to now: enabled, its next attempt due, no live lease, behind `head`. */
const DUE = sql.raw(`w.enabled AND w.next_attempt_at <= now() AND (w.lease_until IS NULL OR w.lease_until < now())
   AND (w.cursor_seq < head.seq OR (w.cursor_seq = head.seq AND w.cursor_id < ${WHOLE_TRANSACTION}))`);

/**
 * Endpoint `w`'s events after a position, committed through `head.seq`, in commit order: the
 * subquery of a LEFT JOIN LATERAL beside `w` and `head`.
 */
const pageAfter = (cursorSeq: SQL, cursorId: SQL, limit: number) => sql`
  SELECT c.seq::float8 AS seq, e.id::float8 AS id, e.type, iso_utc(c.committed_at) AS "committedAt", e.data::text AS data
    FROM event_commits AS c
    JOIN events AS e ON e.xid = c.xid
   WHERE c.seq >= ${cursorSeq} AND (c.seq, e.id) > (${cursorSeq}, ${cursorId}) AND c.seq <= head.seq
     AND ${TAKES}
   ORDER BY c.seq, e.id
   LIMIT ${limit}`;

/** What a page's statement returns per row: the head and retention, and an event (null columns for none). */
type PageRow = { headSeq: number; prunedThrough: number } & { [K in keyof WebhookEvent]: WebhookEvent[K] | null };

/** The page of one endpoint's rows (at least one row: the head's). */
function pageOf(rows: PageRow[], limit: number): PendingPage {
  const events = rows.filter((row): row is PageRow & WebhookEvent => row.seq !== null).map(({ seq, id, type, committedAt, data }) => ({ seq, id, type, committedAt, data }));
  const last = events.at(-1);
  const through = events.length === limit && last ? { seq: last.seq, id: last.id } : { seq: rows[0]!.headSeq, id: WHOLE_TRANSACTION };
  return { events, through, prunedThrough: rows[0]!.prunedThrough };
}

const HEAD_AND_RETENTION = sql.raw(`head.seq::float8 AS "headSeq", coalesce((SELECT pruned_through FROM event_retention), 0)::float8 AS "prunedThrough",
       page.seq, page.id, page.type, page."committedAt", page.data`);

/** The operator's side: endpoints added, changed, listed and removed (npm run webhooks). */
export function createWebhookEndpointsRepository(db: Database) {
  return {
    /** Adds an endpoint that gets the events committed from now on. */
    async add(input: WebhookFilters & { url: string; description: string | null; sealedSecret: string }): Promise<WebhookEndpointSummary> {
      const [row] = await queryRows<SummaryRow>(
        db,
        sql`INSERT INTO webhook_endpoints (url, description, types, chain_ids, campaign_ids, claimant, secret, cursor_seq, cursor_id)
            VALUES (${input.url}, ${input.description}, ${sql.param(input.types)}::text[], ${sql.param(input.chainIds)}::integer[], ${sql.param(input.campaignIds)}::text[], ${input.claimant},
                    ${input.sealedSecret}, ${HEAD}, ${WHOLE_TRANSACTION})
            RETURNING ${SUMMARY}`,
      );
      return summaryOf(row!);
    },

    async list(): Promise<WebhookEndpointSummary[]> {
      return (await queryRows<SummaryRow>(db, sql`SELECT ${SUMMARY} FROM webhook_endpoints ORDER BY id`)).map(summaryOf);
    },

    async get(id: number): Promise<WebhookEndpointSummary | undefined> {
      const [row] = await queryRows<SummaryRow>(db, sql`SELECT ${SUMMARY} FROM webhook_endpoints WHERE id = ${id}`);
      return row && summaryOf(row);
    },

    /** Changes the URL, description or filters given; undefined: no such endpoint. */
    async update(id: number, changes: Partial<WebhookFilters & { url: string; description: string | null }>): Promise<WebhookEndpointSummary | undefined> {
      const has = (key: keyof typeof changes) => Object.hasOwn(changes, key);
      const [row] = await queryRows<SummaryRow>(
        db,
        sql`UPDATE webhook_endpoints
               SET url = CASE WHEN ${has('url')} THEN ${changes.url ?? null}::text ELSE url END,
                   description = CASE WHEN ${has('description')} THEN ${changes.description ?? null}::text ELSE description END,
                   types = CASE WHEN ${has('types')} THEN ${sql.param(changes.types ?? null)}::text[] ELSE types END,
                   chain_ids = CASE WHEN ${has('chainIds')} THEN ${sql.param(changes.chainIds ?? null)}::integer[] ELSE chain_ids END,
                   campaign_ids = CASE WHEN ${has('campaignIds')} THEN ${sql.param(changes.campaignIds ?? null)}::text[] ELSE campaign_ids END,
                   claimant = CASE WHEN ${has('claimant')} THEN ${changes.claimant ?? null}::text ELSE claimant END
             WHERE id = ${id}
            RETURNING ${SUMMARY}`,
      );
      return row && summaryOf(row);
    },

    /** Disables an endpoint, or enables it where it stopped (its failures forgotten); false: no such endpoint. */
    async setEnabled(id: number, enabled: boolean, reason: string): Promise<boolean> {
      const rows = await queryRows<{ id: number }>(
        db,
        enabled
          ? sql`UPDATE webhook_endpoints
                   SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL, attempts = 0, next_attempt_at = now()
                 WHERE id = ${id} RETURNING id`
          : sql`UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, disabled_at = now()
                 WHERE id = ${id} RETURNING id`,
      );
      return rows.length > 0;
    },

    /** A new secret; the current one goes on signing too until `previousUntil`. False: no such endpoint. */
    async rotateSecret(id: number, sealedSecret: string, previousUntil: Date): Promise<boolean> {
      const rows = await queryRows<{ id: number }>(
        db,
        sql`UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = ${previousUntil}, secret = ${sealedSecret}
             WHERE id = ${id} RETURNING id`,
      );
      return rows.length > 0;
    },

    /**
     * Moves an endpoint back (or on) to `after`, the position it has had everything before: its
     * next message is the first event after it. 'pruned': those events are no longer kept.
     */
    async replay(id: number, after: EventPosition): Promise<'moved' | 'pruned' | 'not-found'> {
      const [row] = await queryRows<{ moved: boolean | null }>(
        db,
        sql`UPDATE webhook_endpoints AS w
               SET cursor_seq = ${after.seq}, cursor_id = ${after.id}, attempts = 0, failing_since = NULL, next_attempt_at = now()
              FROM event_retention AS r
             WHERE w.id = ${id} AND ${after.seq} >= r.pruned_through
            RETURNING true AS moved`,
      );
      if (row) return 'moved';
      return (await this.get(id)) ? 'pruned' : 'not-found';
    },

    /** The position after the last transaction committed before `time`: replaying from it sends what was committed from `time` on. */
    async positionBefore(time: Date): Promise<EventPosition> {
      const [row] = await queryRows<{ seq: number }>(
        db,
        sql`SELECT coalesce((SELECT max(seq) FROM event_commits WHERE committed_at < ${time}), 0)::float8 AS seq`,
      );
      return { seq: row!.seq, id: WHOLE_TRANSACTION };
    },

    async remove(id: number): Promise<boolean> {
      return (await queryRows<{ id: number }>(db, sql`DELETE FROM webhook_endpoints WHERE id = ${id} RETURNING id`)).length > 0;
    },

    /** The endpoint's failed attempts, newest first. */
    async attempts(id: number, limit: number): Promise<WebhookAttempt[]> {
      const rows = await queryRows<WebhookAttempt>(
        db,
        sql`SELECT event_id AS "eventId", attempted_at AS "attemptedAt", status, error, next_attempt_at AS "nextAttemptAt"
              FROM webhook_attempts WHERE endpoint_id = ${id}
             ORDER BY attempted_at DESC, id DESC LIMIT ${limit}`,
      );
      return rows.map((row) => ({ ...row, attemptedAt: dateOf(row.attemptedAt), nextAttemptAt: dateOf(row.nextAttemptAt) }));
    },
  };
}

export type WebhookEndpointsRepository = ReturnType<typeof createWebhookEndpointsRepository>;

/**
 * The deliverers' side. An endpoint is sent to by the process holding its lease; every write of a
 * deliverer names its lease (owner), so a process whose lease ran out (it stalled, another took
 * over) changes nothing.
 */
export function createWebhookDeliveryRepository(db: Database) {
  return {
    /** Keeps events for the endpoints up to `seconds` (WEBHOOK_MAX_RETENTION). */
    async setRetention(seconds: number): Promise<void> {
      await db.execute(sql`UPDATE event_retention SET webhook_retention_seconds = ${seconds} WHERE webhook_retention_seconds <> ${seconds}`);
    },

    /**
     * Leases up to `limit` enabled endpoints that are due and have events after their position,
     * each with its first page of them: skipped when another deliverer holds them (SKIP LOCKED,
     * then the lease itself).
     */
    async lease(owner: string, limit: number, leaseSeconds: number): Promise<LeasedEndpoint[]> {
      // Endpoints whose filters take none of the events after their position: moved to the head in
      // one statement, rather than each leased to find nothing. One whose events are partly pruned
      // stays: it gets a refetch first.
      await db.execute(sql`
        WITH head AS (SELECT coalesce(max(seq), 0) AS seq FROM event_commits)
        UPDATE webhook_endpoints AS w SET cursor_seq = head.seq, cursor_id = ${WHOLE_TRANSACTION}
          FROM head
         WHERE ${DUE}
           AND w.cursor_seq >= (SELECT pruned_through FROM event_retention)
           AND NOT EXISTS (SELECT 1 FROM event_commits AS c JOIN events AS e ON e.xid = c.xid
                            WHERE c.seq >= w.cursor_seq AND (c.seq, e.id) > (w.cursor_seq, w.cursor_id) AND c.seq <= head.seq AND ${TAKES})`);
      // The endpoint's id as endpointId: `id` is the event's.
      type LeaseRow = Omit<LeasedEndpoint, 'id' | 'cursor' | 'page'> & { endpointId: number; cursorSeq: number; cursorId: number } & PageRow;
      const rows = await queryRows<LeaseRow>(
        db,
        sql`WITH head AS (SELECT coalesce(max(seq), 0) AS seq FROM event_commits),
                 due AS (
                   SELECT w.id FROM webhook_endpoints AS w, head
                    WHERE ${DUE}
                    ORDER BY w.next_attempt_at
                    LIMIT ${limit}
                      FOR UPDATE OF w SKIP LOCKED),
                 leased AS (
                   UPDATE webhook_endpoints AS w
                      SET lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${leaseSeconds})
                     FROM due WHERE w.id = due.id
                   RETURNING w.id, w.url, w.secret, CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret,
                             w.cursor_seq, w.cursor_id, w.failing_since, w.attempts, w.types, w.chain_ids, w.campaign_ids, w.claimant)
            SELECT w.id AS "endpointId", w.url, w.secret, w.previous_secret AS "previousSecret", w.cursor_seq::float8 AS "cursorSeq", w.cursor_id::float8 AS "cursorId",
                   w.failing_since AS "failingSince", w.attempts, ${HEAD_AND_RETENTION}
              FROM leased AS w
             CROSS JOIN head
              LEFT JOIN LATERAL (${pageAfter(sql`w.cursor_seq`, sql`w.cursor_id`, PAGE_SIZE)}) AS page ON true
             ORDER BY w.id, page.seq, page.id`,
      );
      const byEndpoint = new Map<number, LeaseRow[]>();
      for (const row of rows) byEndpoint.set(row.endpointId, [...(byEndpoint.get(row.endpointId) ?? []), row]);
      return [...byEndpoint.values()].map((endpointRows) => {
        const { endpointId, url, secret, previousSecret, cursorSeq, cursorId, failingSince, attempts } = endpointRows[0]!;
        return { id: endpointId, url, secret, previousSecret, cursor: { seq: cursorSeq, id: cursorId }, failingSince: dateOf(failingSince), attempts, page: pageOf(endpointRows, PAGE_SIZE) };
      });
    },

    /**
     * The endpoint's events after its position, committed through the head, in commit order, and
     * the last position they were read through: the last event's when the page is full, else the
     * head (every event before it that the filters left out is passed too). One statement.
     */
    async pending(endpointId: number, cursor: EventPosition): Promise<PendingPage> {
      const rows = await queryRows<PageRow>(
        db,
        sql`WITH head AS (SELECT coalesce(max(seq), 0) AS seq FROM event_commits)
            SELECT ${HEAD_AND_RETENTION}
              FROM head
              JOIN webhook_endpoints AS w ON w.id = ${endpointId}
              LEFT JOIN LATERAL (${pageAfter(sql`${cursor.seq}`, sql`${cursor.id}::numeric`, PAGE_SIZE)}) AS page ON true
             ORDER BY page.seq, page.id`,
      );
      if (rows.length === 0) return { events: [], through: cursor, prunedThrough: 0 };
      return pageOf(rows, PAGE_SIZE);
    },

    /**
     * The receiver has everything through `position` (`deliveredId`: the message it accepted last,
     * if any). `leaseSeconds`: keeps the lease that much longer; null: gives it up (the endpoint is
     * due again at once). False: the lease is another's now, and nothing was written.
     */
    async advance(id: number, owner: string, position: EventPosition, deliveredId: string | undefined, leaseSeconds: number | null): Promise<boolean> {
      const rows = await queryRows<{ id: number }>(
        db,
        sql`UPDATE webhook_endpoints
               SET cursor_seq = ${position.seq}, cursor_id = ${position.id}, attempts = 0, failing_since = NULL,
                   last_delivered_at = CASE WHEN ${deliveredId ?? null}::text IS NULL THEN last_delivered_at ELSE now() END,
                   last_delivered_id = coalesce(${deliveredId ?? null}::text, last_delivered_id),
                   lease_owner = CASE WHEN ${leaseSeconds}::integer IS NULL THEN NULL ELSE lease_owner END,
                   lease_until = CASE WHEN ${leaseSeconds}::integer IS NULL THEN NULL ELSE now() + make_interval(secs => ${leaseSeconds}) END
             WHERE id = ${id} AND lease_owner = ${owner}
            RETURNING id`,
      );
      return rows.length > 0;
    },

    /**
     * Records a failed attempt and gives the lease up: the endpoint is due again at its next
     * attempt, or disabled. `accepted`: what the receiver took before the failure (written with it).
     */
    async fail(id: number, owner: string, attempt: FailedAttempt, accepted: { position: EventPosition; deliveredId: string | undefined }): Promise<void> {
      await db.execute(sql`
        WITH endpoint AS (
          UPDATE webhook_endpoints
             SET cursor_seq = ${accepted.position.seq}, cursor_id = ${accepted.position.id},
                 last_delivered_at = CASE WHEN ${accepted.deliveredId ?? null}::text IS NULL THEN last_delivered_at ELSE now() END,
                 last_delivered_id = coalesce(${accepted.deliveredId ?? null}::text, last_delivered_id),
                 attempts = ${attempt.attempts}, failing_since = ${attempt.failingSince},
                 next_attempt_at = coalesce(${attempt.nextAttemptAt ?? null}::timestamptz, next_attempt_at),
                 enabled = ${attempt.disable === undefined}, disabled_reason = ${attempt.disable ?? null}::text,
                 disabled_at = CASE WHEN ${attempt.disable === undefined} THEN NULL ELSE now() END,
                 lease_owner = NULL, lease_until = NULL
           WHERE id = ${id} AND lease_owner = ${owner}
          RETURNING id)
        INSERT INTO webhook_attempts (endpoint_id, event_id, status, error, next_attempt_at)
        SELECT id, ${attempt.eventId}, ${attempt.status}, ${attempt.error}, ${attempt.nextAttemptAt ?? null}::timestamptz FROM endpoint`);
    },

    /** Gives the lease up: due again at once (it has more, or a new event is committed). */
    async release(id: number, owner: string): Promise<void> {
      await db.execute(sql`UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = ${id} AND lease_owner = ${owner}`);
    },

    /** Failed attempts older than a week go. */
    async pruneAttempts(): Promise<void> {
      await db.execute(sql`DELETE FROM webhook_attempts WHERE attempted_at < now() - interval '7 days'`);
    },

    /** Per enabled endpoint: the age of the oldest event it has not had (0 when it has had them all). */
    async lag(): Promise<{ id: number; seconds: number }[]> {
      return queryRows<{ id: number; seconds: number }>(
        db,
        sql`SELECT w.id, greatest(coalesce(extract(epoch FROM now() - (
                     SELECT c.committed_at FROM event_commits AS c
                      WHERE c.seq >= w.cursor_seq + CASE WHEN w.cursor_id < ${WHOLE_TRANSACTION} THEN 0 ELSE 1 END
                      ORDER BY c.seq LIMIT 1)), 0), 0)::float8 AS seconds
              FROM webhook_endpoints AS w WHERE w.enabled ORDER BY w.id`,
      );
    },

    async disabledCount(): Promise<number> {
      const [row] = await queryRows<{ count: number }>(db, sql`SELECT count(*)::int AS count FROM webhook_endpoints WHERE NOT enabled`);
      return row!.count;
    },
  };
}

export type WebhookDeliveryRepository = ReturnType<typeof createWebhookDeliveryRepository>;
