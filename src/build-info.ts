import { readFileSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';

/**
 * What is running: the service's version (package.json), the commit it was built from (BUILD_COMMIT,
 * set by the image build; "unknown" elsewhere) and the Node.js version. Exported as the metric
 * `campaign_service_build_info{version,commit,node} 1` by the API and the indexer alike.
 */

export interface BuildInfo {
  version: string;
  commit: string;
  node: string;
}

let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (!cached) {
    // package.json sits one level above this file's folder, in src/ and in dist/ alike.
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    cached = { version: pkg.version, commit: process.env.BUILD_COMMIT?.trim() || 'unknown', node: process.version };
  }
  return cached;
}

export function registerBuildInfo(registry: Registry): void {
  const info = buildInfo();
  new Gauge({
    name: 'campaign_service_build_info',
    help: 'The running build: version, commit and Node.js version (always 1)',
    labelNames: ['version', 'commit', 'node'],
    registers: [registry],
  }).set(info, 1);
}
