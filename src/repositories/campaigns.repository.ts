import { type SQL, sql } from 'drizzle-orm';
import { limitOffset, limitThroughPage } from './paging.js';
import { type Database, queryRows } from '../db/client.js';
import type { PageRequest } from '../schemas/common.js';
import type { CampaignDetail, CampaignListItem } from '../schemas/campaigns.js';
import { type CampaignFilters, campaignFilterConditions, isActiveAt, onlyWhitelistFilter, whereClause } from './campaign-filters.js';
import { CountCache } from '../db/count-cache.js';
import { SharedReads } from '../db/shared-reads.js';
import { type JsonText, withIsActive, withLiveFields } from '../json/json-text.js';

export type CampaignSort = 'recently-deployed' | 'active';

export interface CampaignPage {
  items: JsonText<CampaignListItem>[];
  total: number;
}

/**
 * Campaign reads. A list costs one query for the page (an index-ordered scan of campaign keys,
 * then the stored documents of that page only) and, when the cached total cannot be trusted, one
 * count. The documents are serialized by the database when the data changes (src/db/sql/refresh_campaigns.sql).
 */
export function createCampaignsRepository(db: Database) {
  const totals = new CountCache();
  const pages = new SharedReads<(ListItemRow & { version: string })[]>();

  return {
    async listCampaigns(filters: CampaignFilters, sort: CampaignSort, page: PageRequest, now: Date): Promise<CampaignPage> {
      const conditions = campaignFilterConditions(filters);
      // The instant is not part of the key: the entry's validity window takes care of time. (A
      // replacer, not `{ ...filters, activeAt }`: a literal that starts with a spread and goes on
      // makes a new V8 hidden class per call, which lives in the old generation; see docs/design.md.)
      const cacheKey = JSON.stringify(filters, (key, value: unknown) => (key === 'activeAt' ? value !== undefined : value));
      const readPage = (instant: Date) =>
        queryRows<ListItemRow & { version: string }>(
          db,
          // Active first among active campaigns only is newest first: without this, the empty inactive
          // half of the query would walk the whole index looking for a row that is not there.
          pageQuery(filters, conditions, filters.activeAt !== undefined ? 'recently-deployed' : sort, page, instant),
          { planPerValue: hasValueFilter(filters) },
        );
      // Identical pages requested together share one query (SharedReads). Not a list of active
      // campaigns only: its filter holds the request's own instant.
      const rows =
        filters.activeAt === undefined
          ? await pages.read(`${cacheKey} ${sort} ${page.offset} ${page.limit}`, now.getTime(), (at) => readPage(new Date(at)))
          : await readPage(now);
      const version = rows[0]?.version ?? '';
      const items = toListItems(rows);

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
      return { items, total };
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
 * total still holds.
 *
 * A page filtered by nothing but the token whitelist (the default list) takes its keys from
 * campaign_list_keys() (src/db/sql/campaign_list_keys.sql), whose plans are kept per server
 * connection too, so that the statement sent costs no planning behind a transaction pooler. Its
 * generic plans walk the index, right for every newest-first page and for active-first pages near
 * the top; a deeper active-first page is planned per request, where reading the table and sorting
 * wins over walking the index past the offset.
 */
function pageQuery(filters: CampaignFilters, conditions: SQL[], sort: CampaignSort, page: PageRequest, now: Date): SQL {
  if (onlyWhitelistFilter(filters) && (sort === 'recently-deployed' || page.offset + page.limit <= ACTIVE_FIRST_INDEX_WALK_ROWS)) {
    return sql`
      SELECT version, document, live, is_active
        FROM campaign_list_items(campaign_list_keys(${filters.tokenWhitelist}, ${sort === 'active'}, ${page.limit}, ${page.offset}, ${now}), ${now})`;
  }
  const newestFirst = sql`ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id`;
  const keys =
    sort === 'recently-deployed'
      ? sql`SELECT c.key, 0 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
            ${whereClause(conditions)} ${newestFirst} ${limitOffset(page.limit, page.offset)}`
      : // Active first: each half is read in index order up to the end of the page, then merged.
        sql`SELECT * FROM (
              (SELECT c.key, 0 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
                ${whereClause([...conditions, isActiveAt(now)])} ${newestFirst} ${limitThroughPage(page.limit, page.offset)})
              UNION ALL
              (SELECT c.key, 1 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
                ${whereClause([...conditions, sql`NOT ${isActiveAt(now)}`])} ${newestFirst} ${limitThroughPage(page.limit, page.offset)})
            ) AS halves
            ORDER BY rank, block_timestamp DESC NULLS LAST, public_id ${limitOffset(page.limit, page.offset)}`;
  return sql`
    SELECT version, document, live, is_active
      FROM campaign_list_items(
             ARRAY(SELECT p.key FROM (${keys}) AS p ORDER BY p.rank, p.block_timestamp DESC NULLS LAST, p.public_id),
             ${now})`;
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
