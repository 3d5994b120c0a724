/**
 * Bundles that load (issue 11): every function of both stages, bundled as CDK bundles it, loads on
 * Node 22 with only the AWS SDK resolvable and the stack's environment, and exports `handler`.
 * Sizes go to bench/bundles.md; a bundle over the 267 KB budget (100 KB more with luxon, the
 * series' time rules, or with the report's spreadsheet writer) fails (scripts/check-bundles.ts).
 */
import {
  BUNDLE_BUDGET_BYTES,
  bundlesReport,
  checkBundles,
  writeBundlesReport,
  type BundleResult,
} from '../../scripts/check-bundles';
import { routeList } from '#contract/routes/index';

let results: BundleResult[] = [];
beforeAll(async () => {
  results = await checkBundles();
  writeBundlesReport(results);
}, 180_000);

it('runs on Node 22, the Lambda runtime', () => {
  expect(process.versions.node).toMatch(/^22\./);
});

it('bundles and loads every function of both stages, each exporting handler', () => {
  expect(new Set(results.map((r) => r.stage))).toEqual(new Set(['dev', 'prod']));
  expect(results.filter((r) => r.handler !== 'inline').length).toBeGreaterThan(30);
  expect(results.filter((r) => !r.loaded).map((r) => `${r.functionName}: ${r.error}`)).toEqual([]);
});

it("answers prod's trigger endpoints with an inline 403 that loads and runs", () => {
  const inline = results.filter((r) => r.handler === 'inline');
  // One per non-production-only handler (the trigger endpoints), in prod only.
  const nonProdOnly = new Set(routeList.filter((r) => r.nonProdOnly).map((r) => r.handler));
  expect(inline.map((r) => r.stage)).toEqual([...nonProdOnly].map(() => 'prod'));
  expect(inline.every((r) => r.loaded)).toBe(true);
});

it('keeps every bundle within the 267 KB budget (100 KB more with luxon or the spreadsheet writer), reported in bench/bundles.md', () => {
  // The API's group, payment, payor and transaction functions never carry luxon (they once did,
  // through the series' writes in the group store: 60-70 KB each).
  const hot = /^(groups|payments|payors|methods|transactions)\//;
  expect(results.filter((r) => r.libraries.includes('luxon') && hot.test(r.handler))).toEqual([]);
  // Only the report's function carries the spreadsheet writer.
  expect([
    ...new Set(results.filter((r) => r.libraries.includes('write-excel-file')).map((r) => r.handler)),
  ]).toEqual(['groups/group-report']);
  expect(results.filter((r) => r.budget > BUNDLE_BUDGET_BYTES + 100 * 1024)).toEqual([]);
  const over = [...new Set(results.filter((r) => r.bytes > r.budget).map((r) => r.handler))];
  expect(bundlesReport(results)).toContain(
    `${new Set(results.map((r) => r.handler)).size - 1} handler bundles, ${over.length} over the budget`,
  );
  expect(over).toEqual([]);
});
