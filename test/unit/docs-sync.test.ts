/**
 * The guides say what the code is, where a test can check it cheaply: docs/integrating.md's event
 * catalogue lists exactly the event types the service sends, no guide repeats a section, the
 * README's layer picture names the folders that exist and the layering rule's handler folders, as
 * docs/architecture.md does, and the rule has every folder of lambdas/ in a layer (its set-up
 * line's Node is test/unit/node-engines.test.ts's).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '#contract/events';
import { FUNCTION_LAYERS, HANDLER_FOLDERS } from '../../eslint.config.mjs';

const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const GUIDES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((p) =>
  p.endsWith('.md'),
);

/** The text outside fenced code blocks. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** The text from `heading` to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

test("defect: docs/integrating.md's event table lacked payment.retry_scheduled: it lists exactly the types sent", () => {
  const catalogue = section(read('docs/integrating.md'), '### Event catalogue');
  const listed = [...catalogue.matchAll(/^\| `([a-z_]+\.[a-z_]+)`/gm)].map(([, type]) => type);
  expect([...listed].sort()).toEqual([...EVENT_TYPES].sort());
  expect(new Set(listed).size).toBe(listed.length);
});

test('defect: docs/architecture.md had two "Data model (one table)" sections: no guide repeats a section', () => {
  const repeats = GUIDES.flatMap((path) => {
    const headings = [...prose(read(path)).matchAll(/^(#{1,3}) (.+)$/gm)].map(
      ([, h, text]) => `${h} ${text}`,
    );
    return headings.filter((h, i) => headings.indexOf(h) !== i).map((h) => `${path}: ${h}`);
  });
  expect(repeats).toEqual([]);
});

describe("the README's layer picture", () => {
  const readme = read('README.md');
  // One picture: the entry points over lib/ and contract/, then the layers inside lambdas/.
  const picture = /### Layers[\s\S]*?```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const at = picture.indexOf('\n lambdas/');
  const [top, inside] = [picture.slice(0, at), picture.slice(at)];
  const isDir = (path: string) => {
    try {
      return statSync(join(ROOT, path)).isDirectory();
    } catch {
      return false;
    }
  };

  test('names every top-level folder of the code, and only folders that exist', () => {
    const named = [...top.matchAll(/\b([a-z]+(?:\/[a-z]+)?)\/(?=[\s)])/g)].map(([, dir]) => dir!);
    expect(named.filter((dir) => !isDir(dir))).toEqual([]);
    for (const dir of ['bin', 'scripts', 'bench', 'lib/cdk', 'lib/local', 'lib/openapi', 'contract'])
      expect([dir, named.includes(dir)]).toEqual([dir, true]);
    const libs = readdirSync(join(ROOT, 'lib')).filter((d) => isDir(`lib/${d}`));
    expect(libs.filter((d) => !named.includes(`lib/${d}`))).toEqual([]);
  });

  test("names every folder of lambdas/, and the contract's parts as they are", () => {
    const named = new Set([...inside.matchAll(/\b([a-z-]+)\/(?=[\s)]|$)/gm)].map(([, dir]) => dir!));
    const folders = readdirSync(join(ROOT, 'lambdas')).filter((d) => isDir(`lambdas/${d}`));
    expect(folders.filter((d) => !named.has(d))).toEqual([]);
    expect([...named].filter((d) => d !== 'lambdas' && !folders.includes(d))).toEqual([]);
    const parts = /contract\/\s+([^\n]+)\n\s+([^\n]+)/.exec(top)!;
    const contract = `${parts[1]} ${parts[2]}`.split(/[\s·]+/).filter((w) => w !== '');
    const present = readdirSync(join(ROOT, 'contract')).map((f) => f.replace(/\.ts$/, ''));
    expect(contract.filter((part) => !present.includes(part))).toEqual([]);
  });

  test("lists the layering rule's handler folders (eslint.config.mjs) as the handler folders, in its order", () => {
    const block = inside.slice(0, inside.indexOf('│'));
    const listed = [...block.matchAll(/\b([a-z-]+)\/(?=\s)/g)]
      .map(([, dir]) => dir!)
      .filter((d) => d !== 'lambdas');
    expect(listed).toEqual(HANDLER_FOLDERS);
  });
});

test("defect: settings/ held handlers outside the layering rule's handler folders: every folder of lambdas/ is in a layer of the rule", () => {
  const layered = FUNCTION_LAYERS.flat();
  const folders = readdirSync(join(ROOT, 'lambdas'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  expect(folders.filter((d) => !layered.includes(d))).toEqual([]);
  expect(FUNCTION_LAYERS[0]).toEqual(HANDLER_FOLDERS);
});

test("docs/architecture.md's layers name the layering rule's handler folders", () => {
  const bullet = /the handler folders \(([^)]*)\)/.exec(read('docs/architecture.md'))?.[1] ?? '';
  const named = [...bullet.matchAll(/`([a-z-]+)\/`/g)].map(([, dir]) => dir!);
  expect(named).toEqual(HANDLER_FOLDERS);
});
