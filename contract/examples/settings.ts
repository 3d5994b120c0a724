/** Examples of the merchant settings operations (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';
import { updated } from './views';

export const settingsExamples: Record<string, OperationExamples> = {
  GetMerchantSettings: {
    response: success('The defaults: no retries', {
      servicePayId: P.MID,
      retryPolicy: { maxRetries: 0, intervalHours: 24 },
    }),
    invalid: unknownQuery('expand', 'groups'),
  },
  UpdateMerchantSettings: {
    requests: {
      retries: {
        summary: 'Retry declined payments up to 3 times, 3 days apart',
        value: { retryPolicy: { maxRetries: 3, intervalHours: 72 } },
      },
    },
    response: success('The settings after the change', {
      servicePayId: P.MID,
      retryPolicy: { maxRetries: 3, intervalHours: 72 },
      ...updated,
    }),
    invalid: {
      summary: 'More retries than the networks allow a policy, and an interval under a day',
      body: { retryPolicy: { maxRetries: 5, intervalHours: 12 } },
      response: refused(
        ['retryPolicy.maxRetries', 'retryPolicy.maxRetries must be <= 4'],
        ['retryPolicy.intervalHours', 'retryPolicy.intervalHours must be >= 24'],
      ),
    },
  },
};
