/**
 * CPU time over a window, by process kind: this bench process (the load generator or the raw
 * SDK client), the runtime (node), DynamoDB Local (java, a descendant of the runtime), and the
 * machine as a whole. On 2 cores the three share the CPU, so "CPU ms per request" per kind
 * says where a request's cost goes. Linux /proc only; elsewhere only `bench` is reported.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export type CpuUsage = Record<string, number>;

const TICKS_PER_SECOND = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(out.stdout?.trim()) || 100;
})();

interface Stat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, in ms */
  cpuMs: number;
  /** stime (kernel: syscalls, loopback TCP), in ms */
  sysMs: number;
}

function readStat(pid: number, file = `/proc/${pid}/stat`): Stat | undefined {
  try {
    const raw = readFileSync(file, 'utf8');
    // comm is in parentheses and may hold spaces: split after the last ')'.
    const close = raw.lastIndexOf(')');
    const comm = raw.slice(raw.indexOf('(') + 1, close);
    const fields = raw.slice(close + 2).split(' ');
    // fields[0] is state (field 3); utime/stime are fields 14/15 → indexes 11/12.
    return {
      pid,
      ppid: Number(fields[1]),
      comm,
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
      sysMs: (Number(fields[12]) * 1000) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

function descendants(roots: number[]): Stat[] {
  let all: Stat[];
  try {
    all = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map((d) => readStat(Number(d)))
      .filter((s): s is Stat => s !== undefined);
  } catch {
    return [];
  }
  const byParent = new Map<number, Stat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const found: Stat[] = [];
  const queue = all.filter((s) => roots.includes(s.pid));
  while (queue.length > 0) {
    const s = queue.shift()!;
    found.push(s);
    queue.push(...(byParent.get(s.pid) ?? []));
  }
  return found;
}

const kindOf = (s: Stat, roots: number[]) =>
  roots.includes(s.pid) ? 'runtime' : s.comm === 'java' ? 'dynamodb' : 'other';

/** Busy ms of all cores together since boot (/proc/stat). */
function machineBusyMs(): number | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
    const busy = cpu[0]! + cpu[1]! + cpu[2]! + cpu[5]! + cpu[6]! + (cpu[7] ?? 0);
    return (busy * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The runtime's main thread (JavaScript) apart from its other threads (V8 GC/JIT, libuv pool). */
function mainThreads(roots: number[]): Map<number, Stat> {
  return new Map(
    roots
      .map((pid) => [pid, readStat(pid, `/proc/${pid}/task/${pid}/stat`)] as const)
      .filter((e): e is [number, Stat] => e[1] !== undefined),
  );
}

/**
 * CPU of the JIT compiler threads of the java processes among `stats`, by thread id. DynamoDB
 * Local keeps compiling for a minute or more of load: its JIT time is a warm-up cost, not a
 * per-request one, so it is reported apart (`dynamodb.jit`).
 */
function jitThreads(stats: Stat[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of stats) {
    if (s.comm !== 'java') continue;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${s.pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const t = readStat(Number(tid), `/proc/${s.pid}/task/${tid}/stat`);
      if (t && /^C\d CompilerThre/.test(t.comm)) out.set(`${s.pid}/${tid}`, t.cpuMs);
    }
  }
  return out;
}

export function cpuSampler(roots: number[]): { stop(): CpuUsage } {
  const selfStart = process.cpuUsage();
  const initial = descendants(roots);
  const before = new Map(initial.map((s) => [s.pid, s]));
  const mainBefore = mainThreads(roots);
  const jitBefore = jitThreads(initial);
  const machineStart = machineBusyMs();
  return {
    stop() {
      const self = process.cpuUsage(selfStart);
      const usage: CpuUsage = { bench: (self.user + self.system) / 1000 };
      const sys: CpuUsage = { bench: self.system / 1000 };
      const now = descendants(roots);
      for (const s of now) {
        const kind = kindOf(s, roots);
        usage[kind] = (usage[kind] ?? 0) + s.cpuMs - (before.get(s.pid)?.cpuMs ?? 0);
        sys[kind] = (sys[kind] ?? 0) + s.sysMs - (before.get(s.pid)?.sysMs ?? 0);
      }
      const machineEnd = machineBusyMs();
      if (machineStart !== undefined && machineEnd !== undefined) {
        usage.machine = machineEnd - machineStart;
        // CPU used by processes that are not part of the bench (other work on the machine).
        const ours = Object.values(usage).reduce((sum, ms) => sum + ms, 0) - usage.machine;
        usage.foreign = Math.max(0, usage.machine - ours);
      }
      // Kernel share of each of our kinds, as `<kind>.sys`, the runtime's main thread as
      // `runtime.main` (`.sys` likewise) and DynamoDB Local's JIT compiler threads as
      // `dynamodb.jit`: parts of the totals above, not added to them.
      for (const [kind, ms] of Object.entries(sys)) usage[`${kind}.sys`] = ms;
      let jit = 0;
      for (const [tid, ms] of jitThreads(now)) jit += ms - (jitBefore.get(tid) ?? 0);
      if (now.some((s) => s.comm === 'java')) usage['dynamodb.jit'] = jit;
      for (const [pid, end] of mainThreads(roots)) {
        const start = mainBefore.get(pid);
        if (!start) continue;
        usage['runtime.main'] = (usage['runtime.main'] ?? 0) + end.cpuMs - start.cpuMs;
        usage['runtime.main.sys'] = (usage['runtime.main.sys'] ?? 0) + end.sysMs - start.sysMs;
      }
      return usage;
    },
  };
}
