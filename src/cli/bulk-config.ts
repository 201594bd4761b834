import { loadConfig } from '../config.js';

/** Bulk statements run longer than API queries; the API's time budgets do not apply to the data commands. */
const BULK_TIMEOUT_MS = 3_600_000;

export function loadBulkConfig() {
  return { ...loadConfig(), DB_STATEMENT_TIMEOUT_MS: BULK_TIMEOUT_MS, DB_QUERY_TIMEOUT_MS: BULK_TIMEOUT_MS + 1000, DB_POOL_MAX: 2 };
}
