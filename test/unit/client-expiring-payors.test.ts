/**
 * The TypeScript client's expiringPayors against a real HTTP server on 127.0.0.1 that answers
 * `GET .../payors?expiringBefore=` as the service does (payors/search-payors.ts): at most 100 payors
 * an answer, the next page named only by its `Link: <?expiringBefore=…&pageToken=…>; rel="next"`,
 * which openapi.json declares.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScheduledPaymentsClient } from '../../client/index';

const MID = '32350000001';
const payor = (i: number) => ({ payorId: `p-${i}` });

let server: Server;
let baseUrl: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/oauth2/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 21_600 }));
      }
      const url = new URL(req.url ?? '/', 'http://x');
      asked.push(`${url.searchParams.get('expiringBefore')} ${url.searchParams.get('pageToken') ?? '-'}`);
      const token = url.searchParams.get('pageToken');
      // Page 1: p-0…p-99; page 2 (token a/b=): p-99 again (a second expiring card), p-100; page 3: none.
      const pages: Record<string, [object[], string | undefined]> = {
        first: [Array.from({ length: 100 }, (_, i) => payor(i)), 'a%2Fb%3D'],
        'a/b=': [[payor(99), payor(100)], 'c'],
        c: [[], undefined],
      };
      const [items, next] = pages[token ?? 'first']!;
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(next && { link: `<?expiringBefore=2027-03&pageToken=${next}>; rel="next"` }),
      });
      res.end(JSON.stringify(items));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('defect: the client dropped the Link header of an expiringBefore answer, so that no caller reached the payors past the first 100: expiringPayors follows every page, each payor once', async () => {
  const client = new ScheduledPaymentsClient({
    baseUrl,
    tokenUrl: `${baseUrl}/oauth2/token`,
    clientId: 'id',
    clientSecret: 'secret',
  });
  const payors = await client.expiringPayors(MID, '2027-03');
  expect(payors.map((p) => p.payorId)).toEqual(Array.from({ length: 101 }, (_, i) => `p-${i}`));
  expect(asked).toEqual(['2027-03 -', '2027-03 a/b=', '2027-03 c']);
});

test('defect: openapi.json did not declare the Link header by which an expiringBefore answer names its next page', () => {
  const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as {
    paths: Record<
      string,
      Record<string, { operationId?: string; responses: Record<string, { headers?: object }> }>
    >;
  };
  const search = Object.values(doc.paths)
    .flatMap((ops) => Object.values(ops))
    .find((op) => op.operationId === 'SearchPayors')!;
  expect(Object.keys(search.responses['200']!.headers ?? {})).toEqual(['Link']);
});
