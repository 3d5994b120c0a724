/** Examples of the webhook operations (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';

const CREATED = '2030-05-20T15:04:05.000Z';
const UPDATED = '2030-05-21T09:30:00.000Z';

const endpoint = {
  webhookEndpointId: P.WebhookEndpointID,
  url: P.WebhookURL,
  enabledEvents: ['group.*', 'payment.approved', 'payment.declined'],
  description: 'Ledger sync',
  status: 'enabled',
  dateCreated: CREATED,
  lastUpdated: CREATED,
};

const SECRET = 'whsec_JO8INkkM+ss/p7Q/Uqnpyw5uKeLtJLOW/qoHFhCjRsE=';

export const webhookExamples: Record<string, OperationExamples> = {
  CreateWebhookEndpoint: {
    requests: {
      someEvents: {
        summary: "Groups' events and payments' answers",
        value: {
          url: P.WebhookURL,
          enabledEvents: ['group.*', 'payment.approved', 'payment.declined'],
          description: 'Ledger sync',
        },
      },
      everything: { summary: 'Every event (enabledEvents defaults to ["*"])', value: { url: P.WebhookURL } },
    },
    response: success('The endpoint, with its secret (shown once)', { ...endpoint, secret: SECRET }),
    invalid: {
      summary: 'Not an https URL, and an unknown event type',
      body: { url: 'ftp://hooks.example.com/in', enabledEvents: ['group.exploded'] },
      response: refused(
        ['url', 'url must be an absolute https URL'],
        ['enabledEvents[0]', 'enabledEvents[0] must be an event type, "*" or "<object>.*" (e.g. "group.*")'],
      ),
    },
  },
  ListWebhookEndpoints: {
    response: success("The merchant's endpoints", [endpoint]),
    invalid: unknownQuery('status', 'enabled'),
  },
  GetWebhookEndpoint: {
    response: success('An endpoint (never its secret)', endpoint),
    invalid: unknownQuery('expand', 'secret'),
  },
  UpdateWebhookEndpoint: {
    requests: {
      subscribe: {
        summary: 'Subscribe to every payment event as well',
        value: { enabledEvents: ['group.*', 'payment.*'], description: 'Ledger sync (payments too)' },
      },
    },
    response: success('The endpoint as changed', {
      ...endpoint,
      enabledEvents: ['group.*', 'payment.*'],
      description: 'Ledger sync (payments too)',
      lastUpdated: UPDATED,
    }),
    invalid: {
      summary: 'A status that does not exist',
      body: { status: 'paused' },
      response: refused(['status', 'status must be one of enabled, disabled']),
    },
  },
  DeleteWebhookEndpoint: { invalid: unknownQuery('force', 'true') },
  RotateWebhookSecret: {
    response: success('The new secret; the previous one signs beside it for 24 hours', {
      secret: 'whsec_8mG1Yc6v0GdW0rj2Q3b4bJ3L8dQm9Vx1Kk2Zq7Tn5aE=',
    }),
    invalid: unknownQuery('keepPrevious', 'false'),
  },
  ListWebhookDeliveries: {
    query: { status: 'delivered' },
    response: success('A page of delivered events, newest first', {
      meta: { pageSize: 25 },
      items: [
        {
          eventId: P.EventID,
          type: 'group.created',
          objectId: P.GroupID,
          sequence: 1,
          createdAt: CREATED,
          status: 'delivered',
          attempts: 2,
          lastStatusCode: 200,
          lastAttemptAt: '2030-05-20T15:04:10.412Z',
        },
      ],
    }),
    invalid: {
      summary: 'A status that does not exist',
      query: { status: 'lost' },
      response: refused(['status', 'status must be one of pending, delivered, failed']),
    },
  },
  ReplayWebhookEvents: {
    requests: {
      lastHour: { summary: 'Every event since an outage began', value: { since: P.ReplaySince } },
    },
    response: success('Accepted: the events are sent again in the background', {
      webhookEndpointId: P.WebhookEndpointID,
      since: P.ReplaySince,
      status: 'accepted',
    }),
    invalid: {
      summary: 'A since that is not a date-time',
      body: { since: 'yesterday' },
      response: refused(['since', 'since must be a valid date-time']),
    },
  },
};
