/**
 * The local runtime's two state machines: each ASL file with the substitutions the runtime gives
 * it (lib/local/processing.ts runs them; test/unit/local-state-machines.test.ts checks them).
 */
import {
  PROCESS_GROUP_DEFINITION,
  processGroupTasks,
  settlementClock,
  type TaskBinding,
  VOID_OR_REFUND_DEFINITION,
  voidOrRefundTasks,
} from '../../contract/processing';
import type { Stage } from '../../contract/stage';

/** A state machine the runtime runs: its ASL file, its Tasks' handlers and its other substitutions. */
export interface LocalMachineFile {
  definition: string;
  bindings: readonly TaskBinding[];
  constants: Record<string, string>;
}

/** The runtime's two state machines on a stage . */
export const localMachineFiles = (
  stage: Stage,
): { processGroup: LocalMachineFile; voidOrRefund: LocalMachineFile } => ({
  processGroup: {
    definition: PROCESS_GROUP_DEFINITION,
    bindings: processGroupTasks,
    // The runtime's stage, as CDK substitutes it per stage.
    constants: { SettlementClock: settlementClock(stage) },
  },
  // The background void-or-refund (statemachines/void-or-refund.asl.json), run the same way.
  voidOrRefund: { definition: VOID_OR_REFUND_DEFINITION, bindings: voidOrRefundTasks, constants: {} },
});

/** The substitutions the runtime gives a machine's definition: each Task's local function ARN. */
export const localSubstitutions = ({ bindings, constants }: LocalMachineFile): Record<string, string> => ({
  ...constants,
  ...Object.fromEntries(
    bindings.map((task) => [
      task.substitution,
      `arn:aws:lambda:us-east-1:000000000000:function:local-${task.state}`,
    ]),
  ),
});
