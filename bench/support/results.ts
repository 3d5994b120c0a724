/**
 * bench/results.json as the sections and models read and write it: each owns its part, merged two
 * levels deep (support/report.ts). Its own module, so that the models (bench/peak/) read results
 * without importing the sections that run them.
 */
export type Results = Record<string, unknown>;
