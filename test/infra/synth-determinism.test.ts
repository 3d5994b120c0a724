/**
 * The same code synthesizes the same templates in every process. CDK numbers its tokens from a
 * random offset (0 to 9) in each process, so a template that depends on those numbers changes from
 * one `cdk synth` to the next: CloudFormation then sees a changed template and a deploy updates the
 * stack for nothing. Each stage is synthesized here with CDK loaded afresh at both ends of that
 * range, and every template, the stage stack's and each nested stack's, must be the same.
 */
import type { Stage } from '#contract/stage';
import { SYNTH_TIMEOUT_MS, type stageStacks, type synthStage } from '#support/cdk/synth';

/** The two functions used of the synthesis helpers, from their fresh copy. */
type SynthModule = { synthStage: typeof synthStage; stageStacks: typeof stageStacks };

/** Each stack's template as text, from a CDK loaded afresh whose token numbers start at `offset`. */
function templatesAtOffset(stage: Stage, offset: number): Record<string, string> {
  const global = globalThis as { __cdkTokenMap?: unknown };
  const random = Math.random;
  let templates: Record<string, string> = {};
  jest.isolateModules(() => {
    // CDK keeps its token map on the global object and draws the map's first number when it makes
    // it (Math.floor(Math.random() * 10)): the fresh CDK below makes a new one.
    delete global.__cdkTokenMap;
    Math.random = () => (offset + 0.5) / 10;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { synthStage, stageStacks } = require('#support/cdk/synth') as SynthModule;
      const { stack } = synthStage(stage);
      templates = Object.fromEntries(
        stageStacks(stack).map(({ id, template }) => [id, JSON.stringify(template.toJSON())]),
      );
    } finally {
      Math.random = random;
    }
  });
  return templates;
}

test.each(['dev', 'prod'] as const)(
  "defect: dev's processing functions template changed from one synthesis to the next (outputs in the order of random token numbers): %s's templates do not depend on them",
  (stage) => {
    const first = templatesAtOffset(stage, 0);
    const last = templatesAtOffset(stage, 9);
    expect(Object.keys(first).length).toBeGreaterThan(1);
    const changed = Object.keys(first).filter((id) => first[id] !== last[id]);
    expect({ stage, changed, stacks: Object.keys(last) }).toEqual({
      stage,
      changed: [],
      stacks: Object.keys(first),
    });
  },
  SYNTH_TIMEOUT_MS,
);
