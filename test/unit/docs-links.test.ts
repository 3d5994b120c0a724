/**
 * The README stays short and sends each reader on (issue 17): at most 250 lines, every section
 * of the guides by reader (docs/integrating.md, docs/operating.md) linked from it, and every
 * relative link of the README and docs/*.md names a file that exists and, with `#`, a heading of
 * it (as GitHub makes anchors of headings).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const DOCS = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter((p) =>
  p.endsWith('.md'),
);

/** The text outside fenced code blocks. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The relative links of a Markdown file: [text](target). */
const links = (markdown: string): string[] =>
  [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/.test(target));

it('keeps the README to at most 250 lines', () => {
  expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
});

it.each(['docs/integrating.md', 'docs/operating.md'])(
  'links every section of %s from the README',
  (guide) => {
    const readme = read('README.md');
    const sections = [...prose(read(guide)).matchAll(/^## (.+)$/gm)].map((m) => `${guide}#${slug(m[1]!)}`);
    expect(sections.length).toBeGreaterThan(3);
    for (const section of sections)
      expect([section, readme.includes(`(${section})`)]).toEqual([section, true]);
  },
);

it.each(DOCS)('%s links only to files and headings that exist', (doc) => {
  for (const target of links(read(doc))) {
    const [path, anchor] = target.split('#');
    const file = path === '' ? join(root, doc) : resolve(dirname(join(root, doc)), path!);
    expect([target, existsSync(file)]).toEqual([target, true]);
    if (anchor !== undefined && file.endsWith('.md')) {
      const headings = anchors(readFileSync(file, 'utf8'));
      expect([`${relative(root, file)}#${anchor}`, headings.has(anchor)]).toEqual([
        `${relative(root, file)}#${anchor}`,
        true,
      ]);
    }
  }
});
