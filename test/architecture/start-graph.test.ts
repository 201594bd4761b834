import { cruise } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * What a server loads when it starts: the modules its entry points reach by static imports (type-only
 * imports are erased; dynamic imports load when their code runs, and server.ts loads app.ts so once
 * the settings are read). A server without a signing key or
 * demo data must not hold the chain's code: viem and what checks transactions with it (the action
 * steps, the JSON-RPC clients) load only through ClaimSignatures and the demo's data generator.
 */
async function staticallyReached(entries: string[]): Promise<Map<string, string>> {
  const result = (await cruise(entries, {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  }));
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text');
  const edges = new Map(result.output.modules.map((module) => [module.source, module.dependencies]));
  // Each module with the module that first reached it, for a readable path.
  const reachedFrom = new Map<string, string>(entries.map((entry) => [entry, '']));
  const queue = [...entries];
  while (queue.length > 0) {
    const source = queue.shift()!;
    for (const dependency of edges.get(source) ?? []) {
      const types = dependency.dependencyTypes;
      if (types.includes('dynamic-import') || types.includes('type-only') || types.includes('type-import')) continue;
      if (reachedFrom.has(dependency.resolved)) continue;
      reachedFrom.set(dependency.resolved, source);
      queue.push(dependency.resolved);
    }
  }
  return reachedFrom;
}

const pathTo = (reached: Map<string, string>, target: string) => {
  const path = [target];
  while (reached.get(path[0]!)) path.unshift(reached.get(path[0]!)!);
  return path.join(' -> ');
};

describe("the server's start", () => {
  it('loads no chain code (viem) until a signing key or the demo asks for it', async () => {
    const reached = await staticallyReached(['src/server.ts', 'src/app.ts']);
    expect(reached.has('src/routes/signatures.ts')).toBe(true);
    const chainCode = [...reached.keys()].filter((module) => module.startsWith('node_modules/viem/') || module === 'src/services/claim-signatures.ts');
    expect(chainCode.map((module) => pathTo(reached, module))).toEqual([]);
  }, 60_000);
});
