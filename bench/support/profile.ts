/**
 * Reads the runtime's V8 CPU profile (`--profile`: the runtime runs with `--cpu-prof`) and says
 * where its CPU time went during each measured API window, by category (JWT verification, the
 * AWS SDK's parts, middy, the logger, ajv, node's HTTP stack, GC...) and by function.
 *
 * Profile timestamps are µs on the monotonic clock, the clock of `process.hrtime` in the bench,
 * so samples are cut to the windows exactly.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface WindowSummary {
  name: string;
  /** Wall time of the window and the time sampled in it (idle excluded), ms. */
  wallMs: number;
  busyMs: number;
  operations: number;
  /** The runtime's CPU ms per operation (from /proc): all threads, main thread, the others. */
  cpuMsPerOp?: number;
  mainMsPerOp?: number;
  otherThreadsMsPerOp?: number;
  /**
   * Each sample charged once, to the innermost package or project frame on its stack (node
   * internals and native code go to the code that called them: crypto under jose is jose's,
   * a socket write under the SDK's http handler is the SDK's). Samples with no such frame stay
   * with node's own category (socket reads and HTTP parsing started by the event loop).
   */
  owner: { category: string; msPerOp: number; share: number }[];
  /** Time with the category anywhere on the stack (overlaps), ms per op. */
  inclusive: { category: string; msPerOp: number; share: number }[];
  /** Samples inside socket writes (share of all samples) and the kernel CPU /proc measured. */
  socketWrites: { share: number; kernelMsPerOp: number };
  topFunctions: { fn: string; msPerOp: number; share: number }[];
}

/** Categories whose inclusive time says nothing (every async continuation starts there). */
const HIDDEN_INCLUSIVE = new Set(['root', 'node: event loop, timers, promises', 'bench census hook', 'idle']);

const SPECIAL: Record<string, string> = {
  '(garbage collector)': 'GC',
  '(idle)': 'idle',
  '(program)': 'V8/native (program)',
  '(root)': 'root',
};

/** Category of a frame with a script URL; undefined for native frames (charged to the caller). */
function categoryOf(url: string): string | undefined {
  if (url === '') return undefined;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) {
    const pkg = nm[1]!;
    if (pkg === 'jose') return 'jose (JWT verify)';
    if (
      pkg === '@aws-sdk/util-dynamodb' ||
      pkg === '@aws-sdk/lib-dynamodb' ||
      pkg.includes('dynamodb-codec')
    ) {
      return 'aws-sdk: document marshalling';
    }
    if (pkg.includes('signature-v4') || /signing|signature|sigv4/i.test(url)) return 'aws-sdk: SigV4 signing';
    if (pkg === '@smithy/node-http-handler') return 'aws-sdk: node http handler';
    if (pkg === '@aws-sdk/client-dynamodb') return 'aws-sdk: client-dynamodb (serde, endpoints)';
    if (pkg.startsWith('@aws-sdk/') || pkg.startsWith('@smithy/')) return 'aws-sdk: core, middleware, serde';
    if (pkg === '@middy/core') return 'middy';
    if (pkg.startsWith('@aws-lambda-powertools/')) return 'powertools logger';
    if (pkg === 'ajv' || pkg === 'ajv-formats') return 'ajv';
    if (pkg === 'uuid') return 'uuid';
    if (pkg === 'tsx' || pkg === 'esbuild' || pkg === 'get-tsconfig') return 'tsx loader';
    return `npm: ${pkg}`;
  }
  if (url.includes('/lambdas/')) return 'lambdas/ (handlers, stores, domain)';
  if (url.includes('/lib/local/')) return 'lib/local (gateway, authorizer)';
  if (url.includes('/bench/')) return 'bench census hook';
  if (/^node:(_http|http|internal\/http)/.test(url)) return 'node: http';
  if (/^node:(net|internal\/(net|stream|streams)|stream|internal\/stream_base)/.test(url))
    return 'node: net/streams';
  if (/^node:(crypto|internal\/crypto)/.test(url)) return 'node: crypto';
  if (/^node:(url|internal\/url)/.test(url)) return 'node: url';
  if (/^node:internal\/(process\/task_queues|timers|async_hooks)|^node:timers/.test(url))
    return 'node: event loop, timers, promises';
  if (url.startsWith('node:')) return 'node: other internals';
  return 'other';
}

export interface ProfileWindow {
  name: string;
  windowsUs: [number, number][];
  operations: number;
  /**
   * The runtime's CPU ms per operation measured from /proc in the same windows: `runtime`,
   * `runtime.main` (the JavaScript thread the profile samples) and their `.sys` kernel parts.
   */
  cpu?: Record<string, number>;
}

/** Native socket writes: on loopback the kernel delivers to the peer and wakes it inside them. */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);

/**
 * Note on units: V8 samples on a wall-clock timer, so a sample also lands on a frame while the
 * thread is preempted. On 2 busy cores that is mostly inside socket writes: on loopback the
 * kernel hands the bytes to the peer and wakes it within the write, and the woken process takes
 * the core. So socket-write samples are shown apart, with the main thread's kernel CPU /proc
 * measured (all syscalls) as their ms/req; the other shares are of the remaining samples, and
 * their ms/req are those shares of the main thread's user CPU /proc measured in the same
 * windows. The runtime's other threads (V8 GC/JIT, libuv pool) are not sampled: shown apart.
 */
export function summarizeProfile(file: string, windows: ProfileWindow[]): WindowSummary[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const selfCategory = new Map<number, string>();
  const categoryFor = (id: number): string => {
    const cached = selfCategory.get(id);
    if (cached) return cached;
    const node = byId.get(id)!;
    const special = SPECIAL[node.callFrame.functionName];
    let category = special && node.callFrame.url === '' ? special : categoryOf(node.callFrame.url);
    if (category === undefined) {
      const up = parent.get(id);
      category = up === undefined ? 'native' : categoryFor(up);
      if (category === 'root') category = 'native';
    }
    selfCategory.set(id, category);
    return category;
  };
  const isLayer = (c: string) =>
    !c.startsWith('node:') && !['native', 'root', 'other', 'V8/native (program)'].includes(c);
  /** The aws-sdk's parts are one owner; its parts stay apart in the inclusive view. */
  const ownerName = (c: string) => (c.startsWith('aws-sdk') ? 'aws-sdk (all parts)' : c);
  const ownerOf = new Map<number, string>();
  const ownerFor = (id: number): string => {
    const cached = ownerOf.get(id);
    if (cached) return cached;
    let owner: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const c = categoryFor(at);
      if (isLayer(c)) {
        owner = ownerName(c);
        break;
      }
    }
    owner ??= categoryFor(id);
    ownerOf.set(id, owner);
    return owner;
  };
  const stackCategories = new Map<number, Set<string>>();
  const categoriesOnStack = (id: number): Set<string> => {
    const cached = stackCategories.get(id);
    if (cached) return cached;
    const up = parent.get(id);
    const set = new Set(up === undefined ? [] : categoriesOnStack(up));
    set.add(categoryFor(id));
    stackCategories.set(id, set);
    return set;
  };
  const fnName = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url
      .replace(/^file:\/\//, '')
      .replace(/.*node_modules\//, '')
      .replace(/.*\/main\//, '');
    return `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
  };

  return windows.map((w) => {
    const owner = new Map<string, number>();
    const inclusive = new Map<string, number>();
    const fns = new Map<string, number>();
    let busyUs = 0;
    let writesUs = 0;
    let t = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i]!;
      if (!w.windowsUs.some(([from, to]) => t >= from && t <= to)) continue;
      // A sample's delta is the time since the previous sample: charge it to this sample.
      const dt = profile.timeDeltas[i]!;
      const id = profile.samples[i]!;
      const category = categoryFor(id);
      if (category === 'idle') continue;
      busyUs += dt;
      if (SOCKET_WRITES.has(byId.get(id)!.callFrame.functionName)) {
        writesUs += dt;
        continue;
      }
      const o = ownerFor(id);
      owner.set(o, (owner.get(o) ?? 0) + dt);
      const onStack = new Set(
        [...categoriesOnStack(id)]
          .map((c) => (c.startsWith('aws-sdk') ? [c, 'aws-sdk (all parts)'] : [c]))
          .flat(),
      );
      for (const c of onStack) if (!HIDDEN_INCLUSIVE.has(c)) inclusive.set(c, (inclusive.get(c) ?? 0) + dt);
      const fn = fnName(id);
      fns.set(fn, (fns.get(fn) ?? 0) + dt);
    }
    const ops = Math.max(w.operations, 1);
    // µs of sample time → ms of the main thread's user CPU per op (see the note above).
    const cpu = w.cpu ?? {};
    const main = cpu['runtime.main'] ?? cpu.runtime;
    const mainSys = cpu['runtime.main.sys'] ?? cpu['runtime.sys'] ?? 0;
    const userMs = main !== undefined ? main - mainSys : undefined;
    const rest = busyUs - writesUs;
    const scale = userMs !== undefined && rest > 0 ? (userMs * ops * 1000) / rest : 1;
    const rows = <K extends string>(m: Map<string, number>, key: K, limit: number) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit)
        .map(([k, us]) => ({
          [key]: k,
          msPerOp: Math.round(((us * scale) / 1000 / ops) * 1000) / 1000,
          share: Math.round((us / Math.max(busyUs - writesUs, 1)) * 1000) / 1000,
        })) as ({ [P in K]: string } & { msPerOp: number; share: number })[];
    const owners = rows(owner, 'category', 20);
    const writesShare = Math.round((writesUs / Math.max(busyUs, 1)) * 1000) / 1000;
    const writesMs =
      cpu['runtime.main.sys'] ?? cpu['runtime.sys'] ?? Math.round((writesUs / 1000 / ops) * 1000) / 1000;
    return {
      name: w.name,
      socketWrites: { share: writesShare, kernelMsPerOp: writesMs },
      wallMs: Math.round(w.windowsUs.reduce((ms, [from, to]) => ms + (to - from) / 1000, 0)),
      busyMs: Math.round(busyUs / 1000),
      operations: w.operations,
      ...(cpu.runtime !== undefined && { cpuMsPerOp: cpu.runtime }),
      ...(cpu['runtime.main'] !== undefined && {
        mainMsPerOp: cpu['runtime.main'],
        otherThreadsMsPerOp: Math.round((cpu.runtime! - cpu['runtime.main']) * 1000) / 1000,
      }),
      owner: owners,
      inclusive: rows(inclusive, 'category', 20),
      topFunctions: rows(fns, 'fn', 25),
    };
  });
}

export function renderProfile(summaries: WindowSummary[]): string {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`;
  const lines: string[] = [];
  for (const s of summaries) {
    lines.push(
      `\n== runtime CPU profile: ${s.name}: ${s.operations} requests, ${s.busyMs} ms sampled non-idle in ${s.wallMs} ms`,
    );
    if (s.cpuMsPerOp !== undefined) {
      lines.push(
        `  /proc: runtime ${s.cpuMsPerOp.toFixed(3)} ms CPU/request` +
          (s.mainMsPerOp !== undefined
            ? ` = main (JavaScript) thread ${s.mainMsPerOp.toFixed(3)} + other threads (V8 GC/JIT, libuv pool) ` +
              `${s.otherThreadsMsPerOp!.toFixed(3)}`
            : ''),
      );
    }
    lines.push(
      `  socket writes: ${pct(s.socketWrites.share)} of samples (mostly preemption on loopback); ` +
        `kernel CPU of the main thread (/proc, all syscalls): ${s.socketWrites.kernelMsPerOp.toFixed(3)} ms/req`,
    );
    lines.push(
      '  main-thread user time by owner (innermost package/project frame; node internals charged to their caller):',
    );
    for (const r of s.owner) lines.push(`    ${pct(r.share)}  ${r.msPerOp.toFixed(3)} ms/req  ${r.category}`);
    lines.push('  inclusive (category anywhere on the stack):');
    for (const r of s.inclusive)
      lines.push(`    ${pct(r.share)}  ${r.msPerOp.toFixed(3)} ms/req  ${r.category}`);
    lines.push('  top functions (self):');
    for (const r of s.topFunctions) lines.push(`    ${pct(r.share)}  ${r.fn}`);
  }
  return lines.join('\n');
}
