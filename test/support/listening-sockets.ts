/**
 * The TCP sockets a process and its descendants listen on, and at which address, read from
 * Linux's /proc (no `ss` or `lsof` needed): each process's open sockets (/proc/<pid>/fd, links
 * `socket:[<inode>]`) matched with the listening rows of /proc/net/tcp and /proc/net/tcp6.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface ListeningSocket {
  pid: number;
  /** The process's command line, arguments joined by spaces. */
  command: string;
  /** As written by people: `127.0.0.1`, `::`, `::1`, `::ffff:127.0.0.1`, `0.0.0.0`. */
  address: string;
  port: number;
}

/** `read()`, or `otherwise` when it throws: the process ended, or closed the file, meanwhile. */
function tryOr<T>(read: () => T, otherwise: T): T {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

const readOr = (path: string, otherwise: string): string =>
  tryOr(() => readFileSync(path, 'utf8'), otherwise);

/** `root` and every process below it. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readOr(`/proc/${entry}/stat`, '');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(Number(entry));
  }
  const tree: number[] = [];
  for (const queue = [root]; queue.length > 0;) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** /proc/net/tcp's address: 32-bit words in the host's (little-endian) byte order. */
function decodeAddress(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) =>
    (word.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)),
  );
  if (bytes.length === 4) return bytes.join('.');
  const v4 = bytes.slice(12).join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `::ffff:${v4}`;
  if (bytes.every((b) => b === 0)) return '::';
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return '::1';
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

/** Listening sockets of this network namespace by inode. */
function listeningByInode(): Map<string, { address: string; port: number }> {
  const rows = new Map<string, { address: string; port: number }>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== '0A' || local === undefined || inode === undefined) continue; // 0A: LISTEN
      const [address, port] = local.split(':');
      rows.set(inode, { address: decodeAddress(address!), port: parseInt(port!, 16) });
    }
  }
  return rows;
}

/** Every TCP socket that `root` or a process below it listens on. */
export function listeningSockets(root: number): ListeningSocket[] {
  const listening = listeningByInode();
  const found = new Map<string, ListeningSocket>();
  for (const pid of processTree(root)) {
    const command = readOr(`/proc/${pid}/cmdline`, '').split('\0').join(' ').trim();
    for (const fd of tryOr(() => readdirSync(`/proc/${pid}/fd`), [])) {
      const target = tryOr(() => readlinkSync(`/proc/${pid}/fd/${fd}`), '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const row = inode === undefined ? undefined : listening.get(inode);
      if (row && !found.has(inode!)) found.set(inode!, { pid, command, ...row });
    }
  }
  return [...found.values()];
}

/** 127.0.0.0/8, ::1, and 127.0.0.0/8 mapped into IPv6. */
export const isLoopback = (address: string): boolean =>
  /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(address) || address === '::1';

/** This machine's IPv4 addresses other than loopback (none on a machine with loopback alone). */
export const outwardAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);

/** Whether a TCP connection to `host:port` is accepted (within 3 s). */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 3_000 });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
