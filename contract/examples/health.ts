/** The health check's example (contract/health.ts): its one answer; it refuses no input. */
import { HEALTH } from '../health';
import { success, type OperationExamples } from './types';

export const healthExamples: Record<string, OperationExamples> = {
  [HEALTH.id]: { response: success('The API takes requests', HEALTH.body) },
};
