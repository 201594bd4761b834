import { type SQL, sql } from 'drizzle-orm';
import { limitOffset, limitThroughPage } from './paging.js';
import { type Database, queryRows } from '../db/client.js';
import type { PageRequest } from '../schemas/common.js';
import type { CampaignDetail, CampaignListItem } from '../schemas/campaigns.js';
import {
  type CampaignFilters,
  campaignFilterConditions,
  filtersKey,
  isActiveAt,
  onlyWhitelistFilter,
  whereClause,
} from './campaign-filters.js';
import { CountCache } from '../db/count-cache.js';
import { SharedReads } from '../db/shared-reads.js';
import { type JsonText, withIsActive, withLiveFields } from '../json/json-text.js';

export type CampaignSort = 'recently-deployed' | 'active';

/**
 * Where a walk of the campaign list stands: the last campaign's place in the list's order, `rank`
 * (0: active, 1: not, with `active`; always 0 with `recently-deployed`), then `block_timestamp`
 * newest first, then public ID. The next page starts strictly after it.
 */
export interface CampaignPosition {
  rank: 0 | 1;
  /** Unix seconds, as an exact decimal. Never NULL: campaigns.block_timestamp is NOT NULL. */
  blockTimestamp: string;
  publicId: string;
}

/**
 * Which campaigns: a page (`limit` after `offset`), or the `limit` after a walk's position. `count`
 * asks for the total; `limit + 1` keys are read, so that the answer knows whether a next page exists.
 */
export type CampaignListRequest = { limit: number; count: boolean } & ({ offset: number } | { after: CampaignPosition });

export interface CampaignPage {
  items: JsonText<CampaignListItem>[];
  /** With `count` only. */
  total: number | undefined;
  /** Whether campaigns follow the page. */
  more: boolean;
  /** The position of the page's last campaign (none on an empty page). */
  last: CampaignPosition | undefined;
}

/**
 * Campaign reads. A list costs one query for the page (an index-ordered scan of campaign keys,
 * then the stored documents of that page only) and, when the cached total cannot be trusted, one
 * count. The documents are serialized by the database when the data changes (src/db/sql/refresh_campaigns.sql).
 */
export function createCampaignsRepository(db: Database) {
  const totals = new CountCache();
  const pages = new SharedReads<PageRow[]>();

  return {
    async listCampaigns(filters: CampaignFilters, sort: CampaignSort, request: CampaignListRequest, now: Date): Promise<CampaignPage> {
      const conditions = campaignFilterConditions(filters);
      // The instant is not part of the key: the entry's validity window takes care of time.
      const cacheKey = filtersKey(filters);
      // Active first among active campaigns only is newest first: without this, the empty inactive
      // half of the query would walk the whole index looking for a row that is not there.
      const order = filters.activeAt !== undefined ? 'recently-deployed' : sort;
      const readPage = (instant: Date) =>
        queryRows<PageRow>(db, pageQuery(filters, conditions, order, request, instant), { planPerValue: hasValueFilter(filters) });
      // Identical pages requested together share one query (SharedReads). Not a list of active
      // campaigns only (its filter holds the request's own instant), nor a walk's page (it is read
      // at the walk's instant, and deep pages are seldom asked for together).
      const rows =
        filters.activeAt === undefined && 'offset' in request
          ? await pages.read(`${cacheKey} ${sort} ${request.offset} ${request.limit}`, now.getTime(), (at) => readPage(new Date(at)))
          : await readPage(now);
      const version = rows[0]?.version ?? '';
      const items = toListItems(rows);
      const lastRow = rows.findLast((row) => row.document !== null);
      const last: CampaignPosition | undefined =
        lastRow === undefined
          ? undefined
          : { rank: order === 'active' && lastRow.is_active !== true ? 1 : 0, blockTimestamp: lastRow.block_timestamp!, publicId: lastRow.public_id! };
      const more = rows[0]?.more === true;
      if (!request.count) return { items, total: undefined, more, last };

      let total = totals.get(cacheKey, version, now);
      if (total === undefined) {
        const [counted] = await queryRows<{ total: number; version: string; valid_until_ms: number | null }>(
          db,
          countQuery(conditions, filters.activeAt !== undefined ? now : undefined),
        );
        total = counted?.total ?? 0;
        const validUntilMs = counted?.valid_until_ms ?? null;
        totals.set(cacheKey, {
          total,
          version: counted?.version ?? '',
          validFrom: filters.activeAt ?? null,
          validUntil: validUntilMs === null ? null : new Date(validUntilMs),
        });
      }
      return { items, total, more, last };
    },

    /** The list items of campaigns `keys`, in that order (GET /explore). */
    async listItemsByKeys(keys: number[], now: Date): Promise<JsonText<CampaignListItem>[]> {
      if (keys.length === 0) return [];
      return toListItems(
        await queryRows<ListItemRow>(db, sql`SELECT document, live, is_active FROM campaign_list_items(${sql.param(keys)}::integer[], ${now})`),
      );
    },

    /** Newest campaigns first (ties on ID) on `chainIds` and by `creator` when given: a page of keys and the count. */
    async listRecentKeys(chainIds: number[] | undefined, creator: string | undefined, page: PageRequest) {
      const conditions: SQL[] = [];
      if (chainIds !== undefined) conditions.push(sql`c.chain_id = ANY(${sql.param(chainIds)}::integer[])`);
      if (creator !== undefined) conditions.push(sql`c.creator = ${creator}`);
      const rows = await queryRows<{ total: number; key: number | null }>(
        db,
        sql`SELECT (SELECT count(*)::integer FROM campaigns AS c ${whereClause(conditions)}) AS total, p.key
              FROM (SELECT 1) AS one
              LEFT JOIN (SELECT c.key, c.block_timestamp, c.public_id FROM campaigns AS c ${whereClause(conditions)}
                          ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT ${page.limit} OFFSET ${page.offset}) AS p ON true
             ORDER BY p.block_timestamp DESC NULLS LAST, p.public_id`,
        { planPerValue: creator !== undefined },
      );
      return { total: rows[0]?.total ?? 0, keys: rows.flatMap((row) => (row.key === null ? [] : [row.key])) };
    },

    /**
     * The detail of a campaign by its normalised public ID, or null. The query lives in
     * campaign_detail() (src/db/sql/campaign_detail.sql), whose plan PostgreSQL keeps per server
     * connection, also behind a transaction pooler where no named statement is kept.
     */
    async findCampaignDetail(publicId: string, now: Date): Promise<JsonText<CampaignDetail> | null> {
      const [row] = await queryRows<{ detail: string; live: string; is_active: boolean }>(
        db,
        sql`SELECT detail, live, is_active FROM campaign_detail(${publicId}, ${now})`,
      );
      return row ? withIsActive<CampaignDetail>(withLiveFields(row.detail, row.live), row.is_active) : null;
    },
  };
}

export type CampaignsRepository = ReturnType<typeof createCampaignsRepository>;

/** A row of campaign_list_items(): NULL document on the row that only carries the version (no key, or none found). */
interface ListItemRow {
  document: string | null;
  live: string | null;
  is_active: boolean | null;
}

/** A row of a list page: a list item, where it stands in the order, the version, and whether campaigns follow the page. */
interface PageRow extends ListItemRow {
  version: string;
  block_timestamp: string | null;
  public_id: string | null;
  more: boolean;
}

/** The list items of campaign_list_items() rows, in their order. */
function toListItems(rows: ListItemRow[]): JsonText<CampaignListItem>[] {
  return rows.flatMap((row) =>
    row.document === null ? [] : [withIsActive<CampaignListItem>(withLiveFields(row.document, row.live!), row.is_active === true)],
  );
}

/**
 * Whether the page's best plan depends on the filter values: for a token half the campaigns pay,
 * walking the newest-first index and checking each campaign finds a page at once; for a token
 * few pay, that walk reads the whole table, and reading the few matches then sorting them is right.
 * A prepared statement's generic plan picks one for the average value, far slower than the right
 * plan for a common token or target contract; a plan per request costs far less than that.
 */
function hasValueFilter(filters: CampaignFilters): boolean {
  return (
    filters.owner !== undefined ||
    filters.autocampaignId !== undefined ||
    filters.targetContract !== undefined ||
    Boolean(filters.budgetAccounts?.length || filters.tokens?.length || filters.distributionChannels?.length)
  );
}

/**
 * Keys of one page in index order (so deep pages stay index-only scans), then their documents from
 * campaign_list_items() (src/db/sql/campaign_list_items.sql), whose plan PostgreSQL keeps per server
 * connection, also behind a transaction pooler where no named statement is kept. It always returns
 * a row with the version its snapshot saw, even for an empty page, which decides whether a cached
 * total still holds. One key more than the page is read: `more` says whether it was there.
 *
 * A walk's page (`after`) takes the keys after the position: `block_timestamp <= t` bounds the index
 * scan, so that it starts at the position however deep it is, and the ties on `t` up to the position
 * are left out by public ID. With `active`, a position among the inactive campaigns reads only their
 * half. (The column is NOT NULL, so the order's NULLS LAST never applies and the bound loses no row.)
 *
 * A page filtered by nothing but the token whitelist (the default list) takes its keys from
 * campaign_list_keys() (src/db/sql/campaign_list_keys.sql), whose plans are kept per server
 * connection too, so that the statement sent costs no planning behind a transaction pooler. Its
 * generic plans walk the index, right for every newest-first page, every walk's page and for
 * active-first pages near the top; a deeper active-first page by offset is planned per request,
 * where reading the table and sorting wins over walking the index past the offset.
 */
function pageQuery(filters: CampaignFilters, conditions: SQL[], sort: CampaignSort, request: CampaignListRequest, now: Date): SQL {
  const { offset, after } = 'after' in request ? { offset: 0, after: request.after } : { offset: request.offset, after: undefined };
  const read = request.limit + 1;
  let keys: SQL;
  if (onlyWhitelistFilter(filters) && (sort === 'recently-deployed' || after !== undefined || offset + read <= ACTIVE_FIRST_INDEX_WALK_ROWS)) {
    keys = sql`campaign_list_keys(${filters.tokenWhitelist}, ${sort === 'active'}, ${read}, ${offset}, ${now},
                                  ${after?.rank ?? null}::integer, ${after?.blockTimestamp ?? null}::bigint, ${after?.publicId ?? null}::text)`;
  } else {
    const newestFirst = sql`ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id`;
    const past = (position: CampaignPosition | undefined) =>
      position === undefined
        ? []
        : [sql`c.block_timestamp <= ${position.blockTimestamp}::bigint AND (c.block_timestamp < ${position.blockTimestamp}::bigint OR c.public_id > ${position.publicId})`];
    const half = (rank: 0 | 1, condition: SQL[], position: CampaignPosition | undefined, limit: SQL) =>
      sql`(SELECT c.key, ${sql.raw(String(rank))} AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
            ${whereClause([...conditions, ...condition, ...past(position)])} ${newestFirst} ${limit})`;
    keys =
      sort === 'recently-deployed'
        ? half(0, [], after, limitOffset(read, offset))
        : // Active first: each half is read in index order up to the end of the page, then merged. After
          // an inactive campaign only the inactive half follows.
          sql`SELECT * FROM (${sql.join(
            [
              ...(after?.rank === 1 ? [] : [half(0, [isActiveAt(now)], after, limitThroughPage(read, offset))]),
              half(1, [sql`NOT ${isActiveAt(now)}`], after?.rank === 1 ? after : undefined, limitThroughPage(read, offset)),
            ],
            sql` UNION ALL `,
          )}) AS halves
            ORDER BY rank, block_timestamp DESC NULLS LAST, public_id ${limitOffset(read, offset)}`;
    keys = sql`ARRAY(SELECT p.key FROM (${keys}) AS p ORDER BY p.rank, p.block_timestamp DESC NULLS LAST, p.public_id)`;
  }
  return sql`
    SELECT i.version, i.document, i.live, i.is_active, i.block_timestamp::text, i.public_id, cardinality(k.keys) > ${request.limit} AS more
      FROM (SELECT ${keys} AS keys) AS k,
           campaign_list_items(k.keys[1:${request.limit}], ${now}) WITH ORDINALITY AS i
     ORDER BY i.ordinality`;
}

/** How far down an active-first page may end and still take campaign_list_keys()'s index walk. */
const ACTIVE_FIRST_INDEX_WALK_ROWS = 1000;

/**
 * The number of matching campaigns with the version it was counted at and, when the filter depends
 * on the clock, the next instant a campaign starts or ends (when the count may change by itself).
 */
function countQuery(conditions: SQL[], activeAt: Date | undefined): SQL {
  // Milliseconds since the epoch: drivers differ in how they hand back a timestamptz, not a float8.
  const validUntilMs =
    activeAt === undefined
      ? sql`NULL::float8`
      : sql`(EXTRACT(EPOCH FROM campaigns_next_start_or_end(${activeAt})) * 1000)::float8`;
  return sql`
    SELECT count(*)::integer AS total,
           (SELECT value FROM campaign_set_version) AS version,
           ${validUntilMs} AS valid_until_ms
      FROM campaigns AS c ${whereClause(conditions)}`;
}
