/** Examples of the event operations (contract/examples/types.ts). */
import { EVENT_TYPES } from '../events';
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';
import { groupView } from './views';

const groupCreated = {
  id: P.EventID,
  type: 'group.created',
  createdAt: '2030-05-20T09:15:00.000Z',
  merchantId: P.MID,
  objectId: P.GroupID,
  sequence: 1,
  data: groupView,
};

export const eventExamples: Record<string, OperationExamples> = {
  ListEvents: {
    query: { type: 'group.created' },
    response: success('A page of group.created events, newest first', {
      meta: { pageSize: 25 },
      items: [groupCreated],
    }),
    invalid: {
      summary: 'An unknown event type',
      query: { type: 'group.exploded' },
      response: refused(['type', `type must be one of ${EVENT_TYPES.join(', ')}`]),
    },
  },
  GetEvent: {
    response: success("A group's first event", groupCreated),
    invalid: unknownQuery('expand', 'data'),
  },
};
