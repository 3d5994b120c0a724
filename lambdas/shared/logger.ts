/** The one structured logger of the service (Powertools); handlers add keys, never concatenate. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'scheduled-payments',
});
