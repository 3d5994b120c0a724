/**
 * A DNS server on loopback (UDP) for tests of name resolution: it answers the A and AAAA records
 * it is given, never answers a name it is told to stay silent for (a merchant's nameserver that
 * hangs), and answers NXDOMAIN for any other name. It counts the queries of each type and name.
 */
import { createSocket, type Socket } from 'node:dgram';
import * as packet from 'dns-packet';

export interface DnsServer {
  /** `127.0.0.1:<port>`, for a resolver's `setServers`. */
  readonly address: string;
  /** Queries received, by type and name (`A hooks.merchant.test`). */
  readonly queries: Map<string, number>;
  close(): Promise<void>;
}

interface DnsRecords {
  /** Names and their addresses (IPv4 as A, IPv6 as AAAA records). */
  answers?: Record<string, string[]>;
  /** Queries never answered, by name and type (`A`, `AAAA`). */
  silent?: (name: string, type: string) => boolean;
}

export async function startDnsServer({ answers = {}, silent = () => false }: DnsRecords): Promise<DnsServer> {
  const socket: Socket = createSocket('udp4');
  const queries = new Map<string, number>();
  socket.on('message', (message, from) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (question === undefined) return;
    const name = question.name.toLowerCase();
    const asked = `${question.type} ${name}`;
    queries.set(asked, (queries.get(asked) ?? 0) + 1);
    if (silent(name, question.type)) return;
    const known = answers[name];
    const wanted =
      question.type === 'AAAA' ? (a: string) => a.includes(':') : (a: string) => !a.includes(':');
    const records = (known ?? []).filter(wanted).map((data) => ({
      type: question.type as 'A' | 'AAAA',
      name: question.name,
      ttl: 60,
      data,
    }));
    const reply = packet.encode({
      type: 'response',
      id: query.id,
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (known === undefined ? 3 : 0),
      questions: [question],
      answers: records,
    });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
