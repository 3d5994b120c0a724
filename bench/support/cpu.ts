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
}

function readStat(pid: number): Stat | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
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

const kindOf = (s: Stat, roots: number[]) => (roots.includes(s.pid) ? 'runtime' : s.comm === 'java' ? 'dynamodb' : 'other');

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

export function cpuSampler(roots: number[]): { stop(): CpuUsage } {
  const selfStart = process.cpuUsage();
  const before = new Map(descendants(roots).map((s) => [s.pid, s]));
  const machineStart = machineBusyMs();
  return {
    stop() {
      const self = process.cpuUsage(selfStart);
      const usage: CpuUsage = { bench: (self.user + self.system) / 1000 };
      for (const s of descendants(roots)) {
        const kind = kindOf(s, roots);
        usage[kind] = (usage[kind] ?? 0) + s.cpuMs - (before.get(s.pid)?.cpuMs ?? 0);
      }
      const machineEnd = machineBusyMs();
      if (machineStart !== undefined && machineEnd !== undefined) usage.machine = machineEnd - machineStart;
      return usage;
    },
  };
}
