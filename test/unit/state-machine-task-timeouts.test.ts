/**
 * Timeouts against what they bound. Each Task of the state machines outlasts its function on
 * every processor: Step Functions gives up on a Task at its TimeoutSeconds (States.Timeout, which
 * the Retry then starts again), so a function still running then would charge or reverse beside
 * its own retry. The charging batches run as long as the stage's processor needs
 * (contract/processor.ts batchTimeoutSeconds: 600 s at Stripe), the reversing batch likewise
 * (contract/processing.ts reverseBatchTimeoutSeconds). And the processor's webhook function, an
 * API function, ends before API Gateway's 29 s.
 */
import {
  PROCESS_GROUP_DEFINITION,
  reverseBatchTimeoutSeconds,
  VOID_OR_REFUND_DEFINITION,
} from '#contract/processing';
import { PROCESSOR_EVENTS } from '#contract/notices';
import { PROCESSOR_TIMING, PROCESSORS } from '#contract/processor';
import { statesOf } from '#support/asl-states';

const processGroup = statesOf(PROCESS_GROUP_DEFINITION);
const voidOrRefund = statesOf(VOID_OR_REFUND_DEFINITION);

test.each(PROCESSORS)(
  "defect: on a Stripe stage the charging and reversing batches' functions (600 s, 392 s) outlived their Tasks (150 s), which Step Functions then ran again beside them: on %s each Task outlasts its function",
  (processor) => {
    const batch = PROCESSOR_TIMING[processor].batchTimeoutSeconds;
    for (const name of ['AuthorizeFirstBatch', 'AuthorizeBatch'])
      expect(processGroup.get(name)?.TimeoutSeconds).toBeGreaterThan(batch);
    expect(voidOrRefund.get('ReverseBatch')?.TimeoutSeconds).toBeGreaterThan(
      reverseBatchTimeoutSeconds(processor),
    );
  },
);

test("defect: Stripe's webhook function timed out at API Gateway's 29 s, so that the gateway answered a slow event 504 while the function ran on: it ends before", () => {
  expect(PROCESSOR_EVENTS.stripe.timeoutSeconds).toBeLessThan(29);
  expect(PROCESSOR_EVENTS.stripe.timeoutSeconds).toBeGreaterThan(PROCESSOR_TIMING.stripe.callMs / 1000 + 5);
});
