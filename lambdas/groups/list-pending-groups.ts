import * as routes from '#shared/validators.generated';
import { listGroupsHandler } from '#shared/list-groups';

/** GET /rest/merchants/{MID}: groups not deleted and not yet processed (pending or processing). */
export const handler = listGroupsHandler(routes.ListPendingGroups, true);
