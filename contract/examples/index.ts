/** Every operation's examples, by route id (aliases use their target's). */
import { disputeExamples } from './disputes';
import { eventExamples } from './events';
import { groupExamples } from './groups';
import { healthExamples } from './health';
import { payorExamples } from './payors';
import { returnRateExamples } from './return-rates';
import { seriesExamples } from './series';
import { settingsExamples } from './settings';
import { transactionExamples } from './transactions';
import type { OperationExamples } from './types';
import { webhookExamples } from './webhooks';

export { PLACEHOLDERS, type OperationExamples, type Placeholder } from './types';

export const operationExamples: Readonly<Record<string, OperationExamples>> = {
  ...groupExamples,
  ...seriesExamples,
  ...settingsExamples,
  ...returnRateExamples,
  ...payorExamples,
  ...transactionExamples,
  ...disputeExamples,
  ...eventExamples,
  ...webhookExamples,
  ...healthExamples,
};
