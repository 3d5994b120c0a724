/**
 * An execution's steps with their times. Locally from the runtime's `GET /__local/executions/steps`;
 * on a deployed stage from Step Functions' GetExecutionHistory (the caller's AWS credentials; the
 * region is the ARN's). The Step Functions client is loaded only then: every other command of the CLI
 * starts without it (0.19 instead of 0.23 CPU-s a command).
 */
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import type { Session } from './session';

interface Step {
  name: string;
  type: string;
  enteredAt: string;
  tookMs?: number;
}

interface LocalSteps {
  steps: { name: string; type: string; enteredAt: string; exitedAt?: string }[];
}

async function localSteps(baseUrl: string, executionArn: string): Promise<Step[]> {
  const url = `${baseUrl}/__local/executions/steps?executionArn=${encodeURIComponent(executionArn)}`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const { steps } = (await response.json()) as LocalSteps;
  return steps.map((s) => ({
    name: s.name,
    type: s.type,
    enteredAt: s.enteredAt,
    ...(s.exitedAt && { tookMs: Date.parse(s.exitedAt) - Date.parse(s.enteredAt) }),
  }));
}

/** `TaskStateEntered` → `Task`; the states' entered and exited events paired by name. */
async function cloudSteps(executionArn: string): Promise<Step[]> {
  const { GetExecutionHistoryCommand, SFNClient } = await import('@aws-sdk/client-sfn');
  const sfn = new SFNClient({ region: executionArn.split(':')[3] });
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new GetExecutionHistoryCommand({ executionArn, nextToken, maxResults: 1000 }),
    );
    events.push(...(page.events ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  const steps: Step[] = [];
  for (const event of events) {
    const type = event.type ?? '';
    const at = event.timestamp ?? new Date(0);
    if (type.endsWith('StateEntered') && event.stateEnteredEventDetails?.name) {
      steps.push({
        name: event.stateEnteredEventDetails.name,
        type: type.replace('StateEntered', ''),
        enteredAt: at.toISOString(),
      });
    } else if (type.endsWith('StateExited') && event.stateExitedEventDetails?.name) {
      const open = steps.findLast(
        (s) => s.name === event.stateExitedEventDetails!.name && s.tookMs === undefined,
      );
      if (open) open.tookMs = at.getTime() - Date.parse(open.enteredAt);
    }
  }
  return steps;
}

export const executionSteps = (session: Session, executionArn: string): Promise<Step[]> =>
  session.target === 'local' ? localSteps(session.baseUrl, executionArn) : cloudSteps(executionArn);
