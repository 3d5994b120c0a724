/**
 * The route table: the one source for the CDK REST API, the local HTTP server, the handlers and
 * the OpenAPI document. Handlers take their entry by id: `merchantRoute(routes.CreateGroup, ...)`.
 * Aliases (`aliasOf`) share their target's handler, and so one Lambda function.
 */
import { disputeRoutes } from './disputes';
import { eventRoutes } from './events';
import { groupRoutes } from './groups';
import { paymentAliasRoutes, paymentRoutes } from './payments';
import { payorRoutes } from './payors';
import { processingRoutes } from './processing';
import { returnRoutes } from './returns';
import { returnRateRoutes } from './return-rates';
import { seriesRoutes } from './series';
import { settingsRoutes } from './settings';
import { testClockRoutes } from './test-clock';
import { transactionRoutes } from './transactions';
import type { Route } from './types';
import { webhookRoutes } from './webhooks';

export type { ErrorStatus, Route } from './types';
export { NO_QUERY } from './types';

/** Every route by id; the order is the document's. */
export const routes = {
  ...groupRoutes,
  ...paymentRoutes,
  ...paymentAliasRoutes,
  ...seriesRoutes,
  ...processingRoutes,
  ...testClockRoutes,
  ...settingsRoutes,
  ...returnRateRoutes,
  ...payorRoutes,
  ...transactionRoutes,
  ...returnRoutes,
  ...disputeRoutes,
  ...eventRoutes,
  ...webhookRoutes,
};

export const routeList: readonly Route[] = Object.values(routes);

/** Distinct handler modules, one Lambda function each. */
export const handlerModules = (): string[] => [...new Set(routeList.map((r) => r.handler))];
