/** What a stream asks for; an absent field takes every value. */
export interface EventFilter {
  types?: ReadonlySet<string>;
  chainIds?: ReadonlySet<number>;
  campaignIds?: ReadonlySet<string>;
  claimant?: string;
}

/** The fields of an event that filters read. */
export interface FilteredFields {
  type: string;
  chainId: number | null;
  campaignId: string | null;
  claimant: string | null;
}

/**
 * Whether a stream with `filter` gets the event. A refetch event goes to every stream, whatever it
 * asked for: it says that what the client shows may be out of date. A filter on a field the event
 * does not have (a trending event has no campaign or claimant) does not take it.
 */
export function matches(filter: EventFilter, event: FilteredFields): boolean {
  if (event.type === 'refetch') return true;
  if (filter.types && !filter.types.has(event.type)) return false;
  if (filter.chainIds && (event.chainId === null || !filter.chainIds.has(event.chainId))) return false;
  if (filter.campaignIds && (event.campaignId === null || !filter.campaignIds.has(event.campaignId))) return false;
  if (filter.claimant !== undefined && event.claimant !== filter.claimant) return false;
  return true;
}
