/**
 * The schemas the OpenAPI document shows as named components, in the document's order. A schema
 * (or one-of list) not listed here is shown inline; a request body's unlisted root schema becomes
 * `<route id>Request`.
 */
import { errorSchema } from './common';
import { eventPageSchema, eventSchema } from './events';
import {
  createGroupSchema,
  groupListSchema,
  groupPageSchema,
  groupSchema,
  groupWithPaymentsSchema,
  updateGroupSchema,
} from './groups';
import {
  addPaymentSchema,
  customAttributesSchema,
  feeSchema,
  inlinePaymentSchema,
  paymentListSchema,
  paymentPageSchema,
  paymentSchema,
  updatePaymentSchema,
  voidOrRefundResponseSchema,
} from './payments';
import {
  billingAddressSchema,
  bulkSearchSchema,
  cardMethodSchema,
  checkingMethodSchema,
  cardTokenMethodSchema,
  checkingTokenMethodSchema,
  mandateSchema,
  createPayorSchema,
  customerDataSchema,
  newMethodSchemas,
  payorSchema,
  savedMethodSchema,
  updateMethodSchema,
  updatePayorSchema,
} from './payors';
import { healthSchema } from '../health';
import {
  triggerMerchantSchema,
  triggerResultSchema,
  retryResultSchema,
  voidOrRefundAcceptedSchema,
  voidOrRefundResultSchema,
  voidOrRefundSchema,
} from './processing';
import {
  authResponseSchema,
  refundHistoryItemSchema,
  refundResponseSchema,
  refundSchema,
  saleSchema,
  transactionSchema,
} from './transactions';
import {
  createSeriesSchema,
  nextOccurrenceSchema,
  pastOccurrenceSchema,
  seriesListSchema,
  seriesPageSchema,
  seriesSchema,
  updateSeriesSchema,
} from './series';
import { retryPolicySchema } from './retries';
import { returnRatesSchema } from './return-rates';
import { settleNowResultSchema } from './test-clock';
import {
  createdWebhookEndpointSchema,
  createWebhookEndpointSchema,
  replayAcceptedSchema,
  replayWebhookSchema,
  updateWebhookEndpointSchema,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookSecretSchema,
} from './webhooks';

/** Request-side components (validator schemas), by name. */
export const requestComponents: ReadonlyMap<string, object> = new Map<string, object>([
  ['CreateGroupRequest', createGroupSchema],
  ['NewGroupPayment', inlinePaymentSchema],
  ['UpdateGroupRequest', updateGroupSchema],
  ['AddPaymentRequest', addPaymentSchema],
  ['UpdatePaymentRequest', updatePaymentSchema],
  ['Fee', feeSchema],
  ['CustomAttributes', customAttributesSchema],
  ['CreatePayorRequest', createPayorSchema],
  ['UpdatePayorRequest', updatePayorSchema],
  ['BulkSearchPayorsRequest', bulkSearchSchema],
  ['NewSavedPaymentMethod', newMethodSchemas],
  ['NewCardMethod', cardMethodSchema],
  ['NewCheckingMethod', checkingMethodSchema],
  ['NewCardTokenMethod', cardTokenMethodSchema],
  ['NewCheckingTokenMethod', checkingTokenMethodSchema],
  ['BankMandate', mandateSchema],
  ['UpdateMethodRequest', updateMethodSchema],
  ['BillingAddress', billingAddressSchema],
  ['CustomerData', customerDataSchema],
  ['SaleRequest', saleSchema],
  ['RefundRequest', refundSchema],
  ['CreateSeriesRequest', createSeriesSchema],
  ['UpdateSeriesRequest', updateSeriesSchema],
  ['RetryPolicy', retryPolicySchema],
  ['VoidOrRefundRequest', voidOrRefundSchema],
  ['ProcessMerchantRequest', triggerMerchantSchema],
  ['CreateWebhookEndpointRequest', createWebhookEndpointSchema],
  ['UpdateWebhookEndpointRequest', updateWebhookEndpointSchema],
  ['ReplayWebhookEventsRequest', replayWebhookSchema],
]);

/** Response-side components (the schemas the views' types derive from), by name. */
export const responseComponents: ReadonlyMap<string, object> = new Map<string, object>([
  ['Error', errorSchema],
  ['Group', groupSchema],
  ['GroupWithPayments', groupWithPaymentsSchema],
  ['GroupList', groupListSchema],
  ['GroupPage', groupPageSchema],
  ['Series', seriesSchema],
  ['SeriesList', seriesListSchema],
  ['SeriesPage', seriesPageSchema],
  ['NextOccurrence', nextOccurrenceSchema],
  ['PastOccurrence', pastOccurrenceSchema],
  ['Payment', paymentSchema],
  ['PaymentList', paymentListSchema],
  ['PaymentPage', paymentPageSchema],
  ['AuthResponse', authResponseSchema],
  ['VoidOrRefundResponse', voidOrRefundResponseSchema],
  ['Payor', payorSchema],
  ['SavedPaymentMethod', savedMethodSchema],
  ['Transaction', transactionSchema],
  ['RefundHistoryItem', refundHistoryItemSchema],
  ['Refund', refundResponseSchema],
  ['TriggerResult', triggerResultSchema],
  ['RetryResult', retryResultSchema],
  ['VoidOrRefundResult', voidOrRefundResultSchema],
  ['VoidOrRefundAccepted', voidOrRefundAcceptedSchema],
  ['SettleNowResult', settleNowResultSchema],
  ['Event', eventSchema],
  ['EventPage', eventPageSchema],
  ['WebhookEndpoint', webhookEndpointSchema],
  ['CreatedWebhookEndpoint', createdWebhookEndpointSchema],
  ['WebhookEndpointList', webhookEndpointListSchema],
  ['WebhookSecret', webhookSecretSchema],
  ['WebhookDelivery', webhookDeliverySchema],
  ['WebhookDeliveryPage', webhookDeliveryPageSchema],
  ['ReplayAccepted', replayAcceptedSchema],
  ['Health', healthSchema],
  ['ReturnRates', returnRatesSchema],
]);
