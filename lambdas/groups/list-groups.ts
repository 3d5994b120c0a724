import * as routes from '#generated/validators';
import { listGroupsHandler } from '#core/lists';

/** GET /rest/merchants/{MID}/groups: groups in every stage. */
export const handler = listGroupsHandler(routes.ListGroups, false);
