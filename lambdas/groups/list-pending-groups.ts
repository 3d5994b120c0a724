import { routes } from '#contract/routes/index';
import { listGroupsHandler } from '#shared/list-groups';

/** GET /rest/merchants/{MID}: groups not deleted and not yet processed (pending or processing). */
export const handler = listGroupsHandler(routes.ListPendingGroups, true);
