/** A PostgreSQL URL without its credentials, safe for logs and error messages. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'PostgreSQL (unparseable URL)';
  }
}
