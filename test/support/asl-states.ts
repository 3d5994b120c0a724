/** The states of a state machine's definition (an ASL file of statemachines/), for tests. */
import { readFileSync } from 'node:fs';

type States = Record<string, AslState>;

interface AslState {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Iterator?: { States: States };
  ItemProcessor?: { States: States };
  Branches?: { States: States }[];
}

/** Every state of a definition file by name, those inside Map and Parallel states included. */
export function statesOf(file: string): Map<string, AslState> {
  const found = new Map<string, AslState>();
  const walk = (states: States) => {
    for (const [name, state] of Object.entries(states)) {
      found.set(name, state);
      for (const inner of [state.Iterator, state.ItemProcessor, ...(state.Branches ?? [])])
        if (inner !== undefined) walk(inner.States);
    }
  };
  walk((JSON.parse(readFileSync(file, 'utf8')) as { States: States }).States);
  return found;
}
