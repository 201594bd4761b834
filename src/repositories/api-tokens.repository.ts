import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { generateToken, hashToken, sameHash } from '../api-token.js';
import type { Database } from '../db/client.js';
import { apiTokens, users } from '../db/schema.js';

export interface ApiTokenSummary {
  id: number;
  userId: string;
  userAddress: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface TokenOwner {
  tokenId: number;
  userId: string;
  address: string;
}

export function createApiTokensRepository(db: Database) {
  return {
    /** Issues a token for a user; the token itself is returned once and never stored. */
    async createToken(userId: string, label: string | null): Promise<{ id: number; token: string }> {
      const token = generateToken();
      const [row] = await db
        .insert(apiTokens)
        .values({ userId, tokenHash: hashToken(token), label })
        .returning({ id: apiTokens.id });
      if (!row) throw new Error('token insert returned no row');
      return { id: row.id, token };
    },

    async listTokens(): Promise<ApiTokenSummary[]> {
      return db
        .select({
          id: apiTokens.id,
          userId: apiTokens.userId,
          userAddress: users.address,
          label: apiTokens.label,
          createdAt: apiTokens.createdAt,
          revokedAt: apiTokens.revokedAt,
        })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .orderBy(asc(apiTokens.id));
    },

    /** Revokes a token at once; returns false when no active token has that id. */
    async revokeToken(id: number): Promise<boolean> {
      const revoked = await db
        .update(apiTokens)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      return revoked.length > 0;
    },

    /** Revokes every active token with a label (the demo token is reissued at each start). */
    async revokeTokensLabelled(label: string): Promise<number> {
      const revoked = await db
        .update(apiTokens)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiTokens.label, label), isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      return revoked.length;
    },

    /** The user an active token belongs to, or null for an unknown or revoked token. */
    async findTokenOwner(token: string): Promise<TokenOwner | null> {
      const hash = hashToken(token);
      const [row] = await db
        .select({ tokenId: apiTokens.id, userId: users.id, address: users.address, tokenHash: apiTokens.tokenHash })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt)))
        .limit(1);
      // The index lookup already matched; the constant-time check keeps the comparison itself timing-safe.
      if (!row || !sameHash(row.tokenHash, hash)) return null;
      return { tokenId: row.tokenId, userId: row.userId, address: row.address };
    },

    async findUserIdByAddress(address: string): Promise<string | null> {
      const [row] = await db.select({ id: users.id }).from(users).where(eq(users.address, address.toLowerCase())).limit(1);
      return row?.id ?? null;
    },

    async findUserById(id: string): Promise<{ id: string; address: string } | null> {
      const [row] = await db.select({ id: users.id, address: users.address }).from(users).where(eq(users.id, id)).limit(1);
      return row ?? null;
    },
  };
}

export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>;
