/** Examples of the return-rates operation (contract/examples/types.ts). */
import { unknownQuery } from './refusals';
import { success, type OperationExamples } from './types';

export const returnRateExamples: Record<string, OperationExamples> = {
  GetReturnRates: {
    response: success('A merchant without bank debits in the window', {
      windowDays: 60,
      debitCount: 0,
      unauthorized: { count: 0, rate: 0, limit: 0.005, status: 'ok' },
      administrative: { count: 0, rate: 0, limit: 0.03, status: 'ok' },
      overall: { count: 0, rate: 0, limit: 0.15, status: 'ok' },
      status: 'ok',
    }),
    otherResponses: {
      alert: success(
        '1,250 debits, 5 of them returned unauthorized: the unauthorized rate at 80% of its limit',
        {
          windowDays: 60,
          debitCount: 1250,
          unauthorized: { count: 5, rate: 0.004, limit: 0.005, status: 'alert' },
          administrative: { count: 3, rate: 0.0024, limit: 0.03, status: 'ok' },
          overall: { count: 41, rate: 0.0328, limit: 0.15, status: 'ok' },
          status: 'alert',
        },
      ),
    },
    invalid: unknownQuery('days', '30'),
  },
};
