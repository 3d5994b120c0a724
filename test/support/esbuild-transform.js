/**
 * Jest transform with esbuild (already a dependency: CDK bundles the Lambdas with it): TypeScript
 * and the ESM-only packages (@middy, jose, uuid) become CommonJS for Jest. Types are checked by
 * `npm run typecheck`, not here.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

// Cached results are keyed by the source, the file and this transform (its own text included).
const self = createHash('sha1').update(readFileSync(__filename)).update(version).digest('hex');

module.exports = {
  getCacheKey(source, filename) {
    return createHash('sha1').update(self).update(filename).update(source).digest('hex');
  },
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: filename.endsWith('.ts') ? 'ts' : 'js',
      format: 'cjs',
      target: 'node22',
      // Jest runs CommonJS: `await import(x)` becomes a require (Jest has no ESM loader here).
      supported: { 'dynamic-import': false },
      sourcemap: 'external',
      sourcefile: filename,
    });
    return { code, map };
  },
};
