/** The type of eslint.config.mjs, for test/unit/layers.test.ts, which lints with the project's config. */
import type { Linter } from 'eslint';

declare const config: Linter.Config[];
export default config;
