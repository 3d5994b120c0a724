/** Unit tier: one scratch directory for the run, the workers' TMPDIR (test/support/run-scratch.ts). */
import { makeRunScratch } from './run-scratch';

export default function setup(): void {
  makeRunScratch('unit');
}
