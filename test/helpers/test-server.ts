/** What global-setup hands every test file: where to clone its database from. */
export type TestDatabaseServer =
  | { kind: 'postgres'; adminUrl: string; templateName: string }
  | { kind: 'pglite'; dumpPath: string };

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
