/**
 * The type of eslint.config.mjs, for test/unit/layers.test.ts, which lints with the project's
 * config, and test/unit/docs-sync.test.ts, which checks the guides against its handler folders.
 */
import type { Linter } from 'eslint';

declare const config: Linter.Config[];
export default config;
/** The handler folders of lambdas/, the first layer. */
export declare const HANDLER_FOLDERS: string[];
/** The folders of each layer of lambdas/, from the top. */
export declare const FUNCTION_LAYERS: string[][];
