/**
 * Issue 9: log keys appended in one invocation must not leak into the next in the same container.
 * Both builders (merchantRoute, taskHandler) reset the keys after every invocation, also a failed one.
 */
import '#support/handlers/env-info-logs';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { handler as getGroup } from '#lambdas/groups/get-group';
import { groupPath, invoke, lambdaContext, resetDb } from '#support/handlers/invoke';

const REQUEST_KEYS = ['clientId', 'mid', 'merchantId', 'paymentGroupId'];

/** The records the logger prints while `run` runs (its own console, not the global one). */
async function printed(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const sink = (logger as unknown as { console: Console }).console;
  const lines: string[] = [];
  const capture = (...args: unknown[]) => {
    lines.push(String(args[0]));
  };
  const spies = (['info', 'warn', 'error'] as const).map((m) =>
    jest.spyOn(sink, m).mockImplementation(capture),
  );
  try {
    await run();
  } finally {
    spies.forEach((s) => s.mockRestore());
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeEach(() => resetDb());

describe('log keys appended in one invocation leak into the next', () => {
  it('an API handler: the second of two sequential invocations logs none of the first one’s keys', async () => {
    const first = await printed(() => invoke(getGroup, { pathParameters: groupPath() }));
    expect(first.some((r) => REQUEST_KEYS.every((k) => k in r))).toBe(true);

    const second = await printed(() => invoke(getGroup, { pathParameters: groupPath(), claims: null }));
    expect(second.length).toBeGreaterThan(0);
    for (const record of second) for (const key of REQUEST_KEYS) expect(record).not.toHaveProperty(key);
  });

  it('a task handler: keys of a failed invocation are gone in the next', async () => {
    const task = taskHandler(async (input: { key?: string }) => {
      if (input.key) {
        logger.appendKeys({ leaked: input.key });
        throw new Error('task failed');
      }
      logger.info('second');
      return 'ok';
    });
    await expect(task({ key: 'first' }, lambdaContext)).rejects.toThrow('task failed');
    const second = await printed(() => task({}, lambdaContext));
    expect(second.map((r) => r.message)).toEqual(['second']);
    expect(second[0]).not.toHaveProperty('leaked');
  });
});
