/** The one structured logger of the service (Powertools); handlers add keys, never concatenate. */
import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './config';

export const logger = new Logger({ serviceName: SERVICE_NAME });
