import { and, asc, count, desc, eq, ilike, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accessListMembers, accessLists } from '../db/schema.js';
import type { AccessListPage } from '../schemas/access-lists.js';

export interface AccessListFilter {
  ownerUserId: string;
  search?: string | undefined;
  sortBy?: 'totalMembers' | undefined;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/** `%`, `_` and the escape character itself match literally; backslash is LIKE's default escape. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

export function createAccessListsRepository(db: Database) {
  return {
    /**
     * One page of a user's access lists and the number of all that match. The page reads the
     * user's lists through access_lists_owner_created_idx; each list's members are counted on
     * the access_list_members primary key inside the same statement (no query per list).
     */
    async listAccessLists(filter: AccessListFilter): Promise<AccessListPage> {
      const where = and(
        eq(accessLists.ownerUserId, filter.ownerUserId),
        filter.search === undefined ? undefined : ilike(accessLists.name, `%${escapeLike(filter.search)}%`),
      );
      const members = db
        .select({ memberCount: count().as('member_count') })
        .from(accessListMembers)
        .where(eq(accessListMembers.accessListId, accessLists.id))
        .as('members');
      const direction = filter.order === 'ASC' ? asc : desc;
      const sortKey: SQL = filter.sortBy === 'totalMembers' ? direction(members.memberCount) : direction(accessLists.createdAt);

      const [rows, [total]] = await Promise.all([
        db
          .select({
            id: accessLists.id,
            name: accessLists.name,
            memberCount: members.memberCount,
            createdAt: accessLists.createdAt,
            icon: accessLists.icon,
          })
          .from(accessLists)
          .crossJoinLateral(members)
          .where(where)
          // The id breaks ties, so that consecutive pages never overlap or skip a list.
          .orderBy(sortKey, asc(accessLists.id))
          .limit(filter.limit)
          .offset(filter.offset),
        db.select({ total: count() }).from(accessLists).where(where),
      ]);
      return {
        accesslists: rows.map(({ id, name, memberCount, createdAt, icon }) => ({
          id,
          name,
          memberCount: Number(memberCount),
          createdAt: createdAt.toISOString(),
          icon,
        })),
        totalAccesslists: total?.total ?? 0,
      };
    },
  };
}

export type AccessListsRepository = ReturnType<typeof createAccessListsRepository>;
