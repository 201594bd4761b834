/**
 * Which Chainlink feed prices which token, from the settings (PRICE_CHAINLINK_FEEDS). The settings
 * (src/config.ts) check it at start-up, so it lives in the base layer beside the other chain
 * settings (src/chain/targets.ts); the price source that reads the feeds is src/prices/chainlink.ts.
 */

export interface ChainlinkFeed {
  chainId: number;
  /** Lowercase; the native token is 0x0000000000000000000000000000000000000000. */
  token: string;
  /** The feed (proxy or aggregator), lowercase. */
  feed: string;
}

const ENTRY = /^([0-9]+)\s*:\s*(0x[0-9a-fA-F]{40})\s*=\s*(0x[0-9a-fA-F]{40})$/;

/** `chainId:token=feed,…` (PRICE_CHAINLINK_FEEDS). */
export function parseChainlinkFeeds(text: string): { feeds: ChainlinkFeed[]; problems: string[] } {
  const feeds: ChainlinkFeed[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const match = ENTRY.exec(entry);
    if (!match) {
      problems.push(`PRICE_CHAINLINK_FEEDS: "${entry}" is not chainId:0xToken=0xFeed`);
      continue;
    }
    const chainId = Number(match[1]);
    if (!Number.isSafeInteger(chainId) || chainId <= 0) {
      problems.push(`PRICE_CHAINLINK_FEEDS: "${entry}" has chain id ${match[1]}, not a positive integer`);
      continue;
    }
    const feed = { chainId, token: match[2]!.toLowerCase(), feed: match[3]!.toLowerCase() };
    const key = `${feed.chainId}:${feed.token}`;
    if (seen.has(key)) problems.push(`PRICE_CHAINLINK_FEEDS: token ${feed.token} of chain ${feed.chainId} is mapped twice`);
    seen.add(key);
    feeds.push(feed);
  }
  return { feeds, problems };
}
