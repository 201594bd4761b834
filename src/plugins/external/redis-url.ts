/** A Redis URL without its credentials, safe for logs. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `Redis at ${parsed.hostname}:${parsed.port || 6379}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'Redis (unparseable URL)';
  }
}
