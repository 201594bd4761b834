import type { Config } from '../config.js';
import type { WindowView } from '../claim-volumes/index.js';
import { AnswersByBytes } from './answers-by-bytes.js';

/**
 * A reward-kit profile (GET /reward-kit) as answered, kept with what it was built from. It is served
 * again only while all of that is unchanged, so a kept answer is byte for byte what building it
 * again would give:
 * - `snapshot`: the database snapshot the lists were read in; the claimant's own rows (claims,
 *   signatures, allow and access lists naming it) must have no write committed since
 *   (claimant_changed_since());
 * - `state`: reward_profile_state() of the listed campaigns (the campaign set, the listed entries'
 *   versions), read in that snapshot;
 * - the clock: from `builtAt` until `validUntil`, the next instant a campaign starts or ends, every
 *   campaign is as active as it was when the lists were read;
 * - `volumes`: the listed campaigns' 24-hour and 1-hour USD volumes the entries show, which claims
 *   leaving those windows change with no write at all.
 */
export interface KeptProfile {
  state: string;
  snapshot: string;
  builtAt: number;
  /** Epoch milliseconds; null when no campaign starts or ends later. */
  validUntil: number | null;
  /** The listed campaigns, in the answer's order (a campaign both claimed and claimable twice). */
  keys: number[];
  /** For each of `keys`, its 24-hour then its 1-hour USD volume in micro-dollars. */
  volumes: Float64Array;
  body: Buffer;
  etag: string;
}

export interface ProfileCacheOptions {
  /** The most bytes of kept answers; the least recently used go first. 0 keeps none. */
  maxBytes: number;
}

/** The volumes a profile's entries show for `keys`, in a view of the claim windows. */
export function listedVolumes(keys: number[], view: WindowView): Float64Array {
  const volumes = new Float64Array(keys.length * 2);
  keys.forEach((key, index) => {
    const volume = view.volume(key);
    volumes[index * 2] = volume?.usdMicros('24h') ?? 0;
    volumes[index * 2 + 1] = volume?.usdMicros('1h') ?? 0;
  });
  return volumes;
}

/**
 * Kept reward-kit profiles by claimant and options, bounded by the bytes of their answers, the least
 * recently served going first (lru-cache). A wallet asks for its profile again and again while
 * little of it changes; checking a kept answer is one statement of a few index lookups and none of
 * the work of building it.
 */
export class ProfileCache extends AnswersByBytes<KeptProfile> {
  constructor(options: ProfileCacheOptions) {
    super(options.maxBytes, (profile) => profile.body.length);
  }

  /** The profile kept under `key`, if its clock window holds `now`: the caller checks its state and volumes. */
  candidate(key: string, now: Date): KeptProfile | undefined {
    const kept = this.kept?.peek(key);
    if (kept === undefined) return undefined;
    const at = now.getTime();
    // Asked for an instant before it was built (a request that began a moment before the one that
    // built it): not known to hold then, but still good for later requests.
    if (at < kept.builtAt) return undefined;
    if (kept.validUntil !== null && at >= kept.validUntil) {
      this.kept!.delete(key);
      return undefined;
    }
    return kept;
  }

  /** Marks `key` as served now, so that it goes last. */
  touch(key: string): void {
    this.kept?.get(key);
  }
}

/** The cache as the app keeps it: PROFILE_CACHE_MAX_MB of answers at most. */
export function createProfileCache(config: Pick<Config, 'PROFILE_CACHE_MAX_MB'>): ProfileCache {
  return new ProfileCache({ maxBytes: config.PROFILE_CACHE_MAX_MB * 1024 * 1024 });
}
