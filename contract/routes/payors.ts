/** Payors and their saved payment methods. */
import { EXPIRING_PAGE_PAYORS, MAX_METHODS_PER_PAYOR } from '../limits';
import {
  bulkSearchSchema,
  createPayorSchema,
  deleteMethodQuerySchema,
  methodDeletionAcceptedSchema,
  methodInUseSchema,
  newMethodSchemas,
  payorSchema,
  savedMethodSchema,
  searchPayorsQuerySchema,
  updateMethodSchema,
  updatePayorSchema,
} from '../schemas/payors';
import { IDEMPOTENT, route } from './types';

export const V1 = '/v1/rest/merchants/{MID}';
const P = `${V1}/payors/{PayorID}` as const;
const PM = `${P}/savedPaymentMethods` as const;

export const payorRoutes = {
  CreatePayor: route({
    id: 'CreatePayor',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${V1}/payors`,
    handler: 'payors/create-payor',
    callsProcessor: true,
    status: 201,
    summary: 'Create a payor with its first saved payment method',
    description: `Creates a payor with its first saved payment method (\`paymentMethod\`), which becomes the default. All payor fields are optional; customerAccountId, when given, must not belong to another payor of this merchant (400).

A card method is \`{accountType: VISA|MASTERCARD|AMEX|DISCOVER, cardNumber, expiryMonth, expiryYear, billingAddress}\`: the number must be 12-19 digits, pass the Luhn check and be of the brand given; the expiry must not be past. A bank method is \`{accountType: CHECKING|SAVINGS, routingNumber, accountNumber, billingAddress, mandate?}\` with a valid ABA routing number and a 4-17 digit account number. Otherwise 400 (messages never echo the number). On a stage whose processor is Stripe, a method may give \`processorToken\` (a PaymentMethod \`pm_…\` made by Stripe's own browser fields) instead of its numbers, and a bank account needs the payor's \`mandate\` (\`{acceptedAt, method: online|paper|phone, ipAddress?, userAgent?}\`, an online one with both; without it, 400); the sandbox refuses a processorToken (400). Full account numbers are never stored, logged or returned: only the masked form (all but the last four digits masked).`,
    body: { schema: createPayorSchema, validatedInCode: { paymentMethod: newMethodSchemas } },
    response: { schema: payorSchema, description: 'The payor with its first method.' },
  }),
  SearchPayors: route({
    id: 'SearchPayors',
    method: 'GET',
    path: `${V1}/payors`,
    handler: 'payors/search-payors',
    status: 200,
    summary: 'Find the payor with a customerAccountId, or the payors with cards expiring before a month',
    description: `Takes exactly one of customerAccountId and expiringBefore (neither, or both: 400).

With \`customerAccountId\`: the payor with this customerAccountId, as a JSON array of zero or one payor (no match is 200 with \`[]\`).

With \`expiringBefore=yyyy-MM\`: the payors having a saved card that expires before that month (a card is valid through the last day of its expiry month, so \`expiringBefore=2027-03\` lists cards expiring in February 2027 or earlier, already expired ones included), each with all its methods, in the order of their earliest such card. Ask with the month of a pending group's slot to find the cards to update before it is charged; such payments also carry \`methodExpiresBeforeSlot: true\`. At most ${EXPIRING_PAGE_PAYORS} payors per answer: when more follow, the answer has the header \`Link: <?expiringBefore=…&pageToken=…>; rel="next"\`; GET the same path with those parameters for the next page (a payor with several expiring cards may appear on two pages). Bank accounts never expire and are not listed.`,
    query: {
      schema: searchPayorsQuerySchema,
      parameters: {
        customerAccountId: { description: "The integrator's customer ID (exact match)." },
        expiringBefore: { description: 'A month, yyyy-MM: list the payors with a card expiring before it.' },
        pageToken: { description: 'The next page of an expiringBefore list, from its Link header.' },
      },
    },
    response: {
      schema: { type: 'array', maxItems: EXPIRING_PAGE_PAYORS, items: payorSchema },
      description: 'Zero or one payor (customerAccountId), or a page of payors (expiringBefore).',
    },
    link: {
      description:
        'expiringBefore only: `<?expiringBefore=…&pageToken=…>; rel="next"` while more payors follow (absent on the last page).',
    },
  }),
  BulkSearchPayors: route({
    id: 'BulkSearchPayors',
    method: 'POST',
    idempotency: 'none',
    path: `${V1}/payors/search`,
    handler: 'payors/bulk-search-payors',
    status: 200,
    summary: 'Find payors by up to 100 customerAccountIds',
    description:
      'Looks up 1 to 100 customerAccountIds at once. A JSON array of the payors found, in the order asked; repeated IDs count once and IDs with no payor are left out.',
    body: { schema: bulkSearchSchema },
    response: {
      schema: { type: 'array', maxItems: 100, items: payorSchema },
      description: 'The payors found.',
    },
  }),
  GetPayor: route({
    id: 'GetPayor',
    method: 'GET',
    path: P,
    handler: 'payors/get-payor',
    status: 200,
    summary: 'Get a payor with its saved methods',
    description: 'A payor with its saved methods.',
    response: { schema: payorSchema, description: 'The payor.' },
  }),
  UpdatePayor: route({
    id: 'UpdatePayor',
    method: 'PUT',
    path: P,
    handler: 'payors/update-payor',
    status: 200,
    summary: 'Update a payor',
    description:
      'Changes the fields present (customerAccountId, customerAccountType, sponsorKey, customerData (replaced as a whole), email). payorId may be sent and must then match the path. A customerAccountId of another payor of this merchant: 400. Saved methods are changed through their own operations.',
    body: { schema: updatePayorSchema },
    response: { schema: payorSchema, description: 'The payor after the update.' },
  }),
  DeletePayor: route({
    id: 'DeletePayor',
    method: 'DELETE',
    path: P,
    handler: 'payors/delete-payor',
    status: 204,
    summary: 'Delete a payor and its saved methods',
    description:
      'Deletes the payor and all its saved methods (a hard delete) and frees its customerAccountId. Refused with 409 while any of its methods is used by a payment of a group not yet processed (not deleted, not yet charged), or by a payment of a series that will still create groups (active or paused): the body lists those payments (`payments`, at most 100) and series (`series`, at most 100); move the payments to a method of another payor (PUT the payment with a new profileId) or delete them, and cancel the series, first. Nothing is deleted then.',
    errors: [409],
    conflict: {
      schema: methodInUseSchema,
      description:
        'Methods of the payor are used by pending payments or series (listed), or a deletion is under way.',
    },
  }),
  ListMethods: route({
    id: 'ListMethods',
    method: 'GET',
    path: PM,
    handler: 'methods/list-methods',
    status: 200,
    summary: "List a payor's saved payment methods",
    description: "The payor's saved payment methods as a JSON array; exactly one has `isDefault: true`.",
    response: {
      schema: { type: 'array', minItems: 1, items: savedMethodSchema },
      description: 'The methods.',
    },
  }),
  AddMethod: route({
    id: 'AddMethod',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: PM,
    handler: 'methods/add-method',
    callsProcessor: true,
    status: 201,
    summary: 'Add a saved payment method',
    description: `Adds a saved method (a card, or a CHECKING or SAVINGS account, as in CreatePayor). The payor's default does not change unless \`setAsDefault\` is true. A payor has at most ${MAX_METHODS_PER_PAYOR} methods (400 beyond).`,
    body: { schema: newMethodSchemas },
    response: { schema: savedMethodSchema, description: 'The method added.' },
  }),
  GetMethod: route({
    id: 'GetMethod',
    method: 'GET',
    path: `${PM}/{PaymentMethodID}`,
    handler: 'methods/get-method',
    status: 200,
    summary: 'Get a saved payment method',
    description: 'A saved method of this payor.',
    response: { schema: savedMethodSchema, description: 'The method.' },
  }),
  UpdateMethod: route({
    id: 'UpdateMethod',
    method: 'PUT',
    path: `${PM}/{PaymentMethodID}`,
    handler: 'methods/update-method',
    status: 200,
    summary: 'Update expiry, billing address, default',
    description:
      'Changes the fields present: expiryMonth/expiryYear (cards only: 400 on a bank account, CHECKING or SAVINGS; not in the past), billingAddress and customerData (each replaced as a whole). `setAsDefault: true` makes this method the default and clears the flag on the previous one (`false` is not accepted: make another method the default instead). Account numbers cannot change: add a new method.',
    body: { schema: updateMethodSchema },
    response: { schema: savedMethodSchema, description: 'The method after the update.' },
  }),
  DeleteMethod: route({
    id: 'DeleteMethod',
    method: 'DELETE',
    path: `${PM}/{PaymentMethodID}`,
    handler: 'methods/delete-method',
    status: 204,
    summary: 'Delete a saved payment method (or move its payments to another and delete it)',
    description: `Deletes a saved method. Deleting the payor's only method is refused (400). Deleting the default makes the oldest remaining method the default (with \`replaceWith\`: the replacement).

A method that payments of groups not yet processed use (not deleted, not yet charged), or that a payment of a series names (a series active or paused: its later occurrences would charge it), is not deleted:

- without \`replaceWith\`: 409, the body listing those payments (\`payments\`, at most 100) and series (\`series\`, at most 100). Nothing changes.
- with \`?replaceWith=<savedPaymentMethodId>\` (another method of the same payor, not closed, not itself being deleted; else 400): those payments move to it (each payment of a group announced by \`payment.updated\`, its profileId now naming the replacement; a series' payment shows the replacement in \`GET .../series/{SeriesID}\`, and its next occurrences charge it) and the method is deleted after them. A payment never names a deleted method, even if the request is cut off: the deletion is written ahead and the service finishes it. Payments of a group being processed cannot move, nor those of a series still being created: 409 listing them (the method stays; retry once the group is processed).
- many payments: the request moves them for a few seconds, then answers 202 \`{savedPaymentMethodId, status: "deleting", movedCount}\` and the service goes on in the background (within minutes); the method is gone when GET answers 404. Repeating the same DELETE meanwhile is safe.

While a deletion is under way no payment can take the method (400), and another DELETE of it (or of its payor) answers 409 (retry in a minute), as does a DELETE of the method it moves payments to (delete that one once the first deletion is done).`,
    query: {
      schema: deleteMethodQuerySchema,
      parameters: {
        replaceWith: {
          description:
            "Move the pending payments that use this method, and the series' payments that name it, to this saved method of the same payor, then delete it.",
        },
      },
    },
    errors: [409],
    conflict: {
      schema: methodInUseSchema,
      description: 'Pending payments or series use the method (listed), or a deletion of it is under way.',
    },
    accepted: {
      schema: methodDeletionAcceptedSchema,
      description: 'The payments go on moving in the background; the method is deleted after them.',
    },
  }),
};
