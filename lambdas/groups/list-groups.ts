import { listGroupsHandler } from '#shared/list-groups';

/** GET /rest/merchants/{MID}/groups: groups in every stage. */
export const handler = listGroupsHandler(false);
