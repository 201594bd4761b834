import { sql } from 'drizzle-orm';

/**
 * In a query over `campaigns AS c`: `claimant` may claim under the campaign's allow list: none or open, listed
 * on an allow list, not listed on a deny list, or a member of the off-chain access list.
 */
export const mayAccess = (claimant: string) => sql`(c.allow_list_id IS NULL OR EXISTS (
  SELECT 1 FROM allow_lists AS a WHERE a.id = c.allow_list_id AND CASE a.type
    WHEN 'OpenAllowList' THEN true
    WHEN 'SimpleAllowList' THEN EXISTS (SELECT 1 FROM allow_list_addresses AS x WHERE x.allow_list_id = a.id AND x.address = ${claimant})
    WHEN 'SimpleDenyList' THEN NOT EXISTS (SELECT 1 FROM allow_list_addresses AS x WHERE x.allow_list_id = a.id AND x.address = ${claimant})
    ELSE EXISTS (SELECT 1 FROM access_list_members AS m WHERE m.access_list_id = a.access_list_id AND m.address = ${claimant})
  END))`;
