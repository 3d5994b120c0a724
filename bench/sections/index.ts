/**
 * Every bench section, in run order. To add one: write `bench/sections/<name>.ts` exporting a
 * `CustomSection` (as processing.ts does), a `ModelSection` (as peak-slot.ts does: no runtime) or a `compareSection(...)` and list it here;
 * `--only=<name>` then runs it alone.
 */
import { createPayment } from './create-payment';
import { delivery, deliveryBesideFast, deliveryBesideSlow } from './delivery';
import { groupReport } from './group-report';
import { handlerCpu } from './handler-cpu';
import { listGroups } from './list-groups';
import { processing } from './processing';
import { peakSlot } from './peak-slot';
import { peakLocal } from './peak-local';
import { processingLatency } from './processing-latency';
import { processorCpuSection } from './processor-cpu';
import { receipts } from './receipts';
import type { AnySection } from './section';

export const sections: readonly AnySection[] = [
  // First: on a runtime that nothing else has loaded yet (no background work left by processing).
  handlerCpu,
  createPayment,
  listGroups,
  processing,
  processingLatency,
  receipts,
  delivery,
  deliveryBesideSlow,
  deliveryBesideFast,
  groupReport,
  processorCpuSection,
  peakSlot,
  peakLocal,
];
