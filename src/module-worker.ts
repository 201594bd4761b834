import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `entry`, a sibling of `callerUrl` named `<name>.js` in the
 * build or `<name>.ts` when the caller itself runs from the TypeScript sources (tests, the
 * benchmark). A worker does not inherit its parent's module hooks, so from the sources it compiles
 * them with tsx first, as its parent does.
 */
export function startModuleWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  const sources = callerUrl.endsWith('.ts');
  const entry = new URL(`./${name}.${sources ? 'ts' : 'js'}`, callerUrl);
  if (!sources) return new Worker(entry, { workerData });
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
