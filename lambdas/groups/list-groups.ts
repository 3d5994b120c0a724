import * as routes from '#shared/validators.generated';
import { listGroupsHandler } from '#shared/list-groups';

/** GET /rest/merchants/{MID}/groups: groups in every stage. */
export const handler = listGroupsHandler(routes.ListGroups, false);
