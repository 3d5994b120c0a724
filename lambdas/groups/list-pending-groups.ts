import * as routes from '#generated/validators';
import { listGroupsHandler } from '#core/lists';

/** GET /rest/merchants/{MID}: groups not deleted and not yet processed (pending or processing). */
export const handler = listGroupsHandler(routes.ListPendingGroups, true);
