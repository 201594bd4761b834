/**
 * What the Docker image's runtime stage sets for the server's process beyond the service's own
 * settings (the Dockerfile's ENV): the benchmark measures the server, and the servers it is
 * compared with, as the image runs them. The environment the benchmark is started with wins.
 *
 * MALLOC_ARENA_MAX=2: glibc's malloc otherwise keeps an arena per thread that ever allocated (the
 * claim load's worker, libuv's pool), and memory freed there stays resident. Measured on
 * 2026-11-25, two servers side by side on the 1,000,000-claim database after the same load: 163-164
 * against 183-186 MB resident, at the same or higher throughput (/campaigns 4,975-5,394 against
 * 4,572-4,581 req/s).
 */
export const IMAGE_ENVIRONMENT: Record<string, string> = {
  MALLOC_ARENA_MAX: '2',
};
