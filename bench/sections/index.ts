/**
 * Every bench section, in run order. To add one (e.g. the state machine's payments/s of a
 * 10,000-payment group): write `bench/sections/<name>.ts` exporting a `CustomSection` (or a
 * `compareSection(...)`) and list it here; `--only=<name>` then runs it alone.
 */
import { createPayment } from './create-payment';
import { listGroups } from './list-groups';
import type { AnySection } from './section';

export const sections: readonly AnySection[] = [createPayment, listGroups];
