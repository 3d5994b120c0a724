/**
 * Issue 22: the README's summary of IAM by function, and docs/operating.md's table of it, are what
 * the synthesized templates of both stages grant (`npm run iam-summary` writes them).
 */
import { readFileSync } from 'node:fs';
import type { Stage } from '#contract/stage';
import { between, renderSummaries, SUMMARY_FILES, tableCells } from '../../scripts/iam-summary';
import { stageTemplateOf, SYNTH_TIMEOUT_MS } from '#support/cdk/synth';

let rendered: ReturnType<typeof renderSummaries>;
beforeAll(() => {
  const json = (stage: Stage) =>
    stageTemplateOf(stage).toJSON() as Parameters<typeof renderSummaries>[0]['dev'];
  rendered = renderSummaries({ dev: json('dev'), prod: json('prod') });
}, 2 * SYNTH_TIMEOUT_MS);

test.each(Object.entries(SUMMARY_FILES))(
  '%s: the IAM summary is the templates’ (npm run iam-summary)',
  (which, file) => {
    // Cell by cell: the tables' padding is Prettier's, which the lint checks (`prettier --check`).
    const written = tableCells(between(readFileSync(file, 'utf8'), file));
    expect(written).toEqual(tableCells(rendered[which as keyof typeof rendered]));
    expect(written.length).toBeGreaterThan(10);
  },
);

test('the summary counts what the least-privilege tests check: prod’s trigger routes hold nothing', () => {
  expect(rendered.readme).toMatch(/\| hold nothing but their logs\s+\| 4\s+\|/);
  expect(rendered.operating).toMatch(/`triggers_process-group`\s+\| nothing \(logs only\)/);
});
