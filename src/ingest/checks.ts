import type { RecordKind } from './records.js';
import { asRecord } from './merge.js';
import type { StagedRows } from './staged-rows.js';
import { stageTable } from './staging.js';

/** The SQL that finds, among staged records, duplicate natural keys and references to rows that do not exist. */

/** A reference from a staged record to a row that must exist by the time the kind is merged. */
export interface ReferenceCheck {
  field: string;
  /** The referenced value as text, for the message; NULL when the record has none. */
  value: string;
  /** True when the referenced row exists. */
  exists: string;
}

export const REFERENCES: Partial<Record<RecordKind, ReferenceCheck[]>> = {
  actionTemplate: [
    { field: 'projectId', value: `r->>'projectId'`, exists: `EXISTS (SELECT 1 FROM projects AS p WHERE p.id = (r->>'projectId')::uuid)` },
  ],
  accessList: [{ field: 'owner', value: `r->>'owner'`, exists: `EXISTS (SELECT 1 FROM users AS u WHERE u.address = r->>'owner')` }],
  allowList: [
    {
      field: 'accessListId',
      value: `r->>'accessListId'`,
      exists: `EXISTS (SELECT 1 FROM access_lists AS a WHERE a.id = (r->>'accessListId')::uuid)`,
    },
  ],
  campaign: [
    {
      field: 'actionTemplateId',
      value: `r->>'actionTemplateId'`,
      exists: `EXISTS (SELECT 1 FROM action_templates AS a WHERE a.id = (r->>'actionTemplateId')::uuid)`,
    },
    {
      field: 'allowList',
      value: `(r->'allowList'->>'chainId') || ':' || (r->'allowList'->>'contractAddress')`,
      exists: `EXISTS (SELECT 1 FROM allow_lists AS a
                        WHERE a.chain_id = (r->'allowList'->>'chainId')::integer AND a.contract_address = r->'allowList'->>'contractAddress')`,
    },
  ],
  claimSignature: [
    {
      field: 'campaign',
      value: `r->>'campaign'`,
      exists: `EXISTS (SELECT 1 FROM campaigns AS c WHERE c.public_id = (r->>'campaign') COLLATE "C")`,
    },
  ],
  claim: [
    {
      field: 'campaign',
      value: `s.campaign`,
      exists: `EXISTS (SELECT 1 FROM campaigns AS c WHERE c.public_id = s.campaign COLLATE "C")`,
    },
  ],
};

/** Staged records whose references are missing: at most `limit`, by line. */
export function missingReferenceStatement(kind: RecordKind, check: ReferenceCheck, rows: StagedRows, limit: number): string {
  return `SELECT s.line, ${check.value} AS value
  FROM ${rows.of(kind)} AS s${asRecord(kind)}
 WHERE NOT s.deleted AND ${check.value} IS NOT NULL AND NOT ${check.exists}
 ORDER BY s.line LIMIT ${limit}`;
}

/** Claims of an incentive position their campaign does not have (checked once the campaigns are merged). */
export function missingIncentiveStatement(rows: StagedRows, limit: number): string {
  return `SELECT s.line, s.incentive_position || ' of ' || s.campaign AS value
  FROM ${rows.of('claim')} AS s
  JOIN campaigns AS c ON c.public_id = s.campaign COLLATE "C"
 WHERE NOT s.deleted
   AND NOT EXISTS (SELECT 1 FROM incentives AS i WHERE i.campaign_key = c.key AND i.position = s.incentive_position)
 ORDER BY s.line LIMIT ${limit}`;
}

/** Natural keys given more than once in a staging table. */
export function duplicateKeyStatement(kind: RecordKind, limit: number): string {
  return `SELECT key, lines[1] AS first, lines[2] AS again
  FROM (SELECT key, array_agg(line ORDER BY line) AS lines FROM ${stageTable(kind)} GROUP BY key HAVING count(*) > 1) AS d
 ORDER BY again LIMIT ${limit}`;
}
