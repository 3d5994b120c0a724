/**
 * The resources as the examples' responses show them, built from one world: the payor PayorID
 * with its card PaymentMethodID, the group GroupID at 2030-06-03 14:00 UTC with the payment
 * PaymentID, and the sale TransactionID (contract/examples/types.ts).
 */
import { PLACEHOLDERS as P } from './types';

const CREATED = '2030-05-20T15:04:05.000Z';
const UPDATED = '2030-05-21T09:30:00.000Z';
export const profileId = `${P.PayorID}/${P.PaymentMethodID}`;

export const billingAddress = {
  line1: '742 Evergreen Terrace',
  city: 'Springfield',
  state: 'OR',
  postalCode: '97475',
  country: 'US',
};

/** A bank account's view: a card's, less the expiry. */
export const bankAccountView = {
  savedPaymentMethodId: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e14',
  payorId: P.PayorID,
  accountType: 'CHECKING',
  maskedAccountNumber: '********6789',
  billingAddress,
  isDefault: true,
  customerData: {},
  status: 'active',
  dateCreated: UPDATED,
  lastUpdated: UPDATED,
};

export const cardView = {
  savedPaymentMethodId: P.PaymentMethodID,
  payorId: P.PayorID,
  accountType: 'VISA',
  maskedAccountNumber: '************1111',
  expiryMonth: 12,
  expiryYear: 2030,
  billingAddress,
  isDefault: true,
  customerData: {},
  status: 'active',
  dateCreated: CREATED,
  lastUpdated: CREATED,
};

export const payorView = {
  payorId: P.PayorID,
  customerAccountId: P.customerAccountId,
  customerAccountType: 'family',
  sponsorKey: null,
  customerData: { grade: '4' },
  email: 'parent@example.com',
  defaultPaymentMethodId: P.PaymentMethodID,
  savedPaymentMethods: [cardView],
  dateCreated: CREATED,
  lastUpdated: CREATED,
};

export const groupView = {
  paymentGroupId: P.GroupID,
  servicePayId: P.MID,
  scheduleDate: '2030-06-03',
  scheduleHour: 14,
  locationId: 42,
  transactionInitiator: 'Merchant',
  surchargeCompliance: false,
  allowPartial: false,
  status: 'pending',
  deleted: false,
  paymentCount: 1,
  totalAmount: 125.5,
  dateCreated: CREATED,
  lastUpdated: CREATED,
};

/** A payment without custom attributes and fees (they are left out when not given). */
export const plainPaymentView = {
  paymentId: P.PaymentID,
  paymentGroupId: P.GroupID,
  profileId,
  amount: 125.5,
  orderId: 'INV-2030-0601',
  recurring: false,
  sendEmailReceipt: true,
  sendPaymentScheduledNotification: false,
  sendDeclineNotification: false,
  deleted: false,
  dateCreated: CREATED,
  lastUpdated: CREATED,
  authResponse: null,
  attempts: [],
};

export const paymentView = {
  ...plainPaymentView,
  customAttributes: { studentId: 'S-1001', term: 'fall' },
  fees: [{ name: 'Service fee', amount: 2.5 }],
};

export const transactionView = {
  transactionId: P.TransactionID,
  type: 'sale',
  status: 'Approved',
  responseCode: '00',
  responseMessage: 'Approved',
  isDuplicate: false,
  amount: 25.5,
  approvedAmount: 25.5,
  authCode: '27E4A1',
  originalAmount: 25.5,
  refundedAmount: 0,
  availableRefundAmount: 25.5,
  refundCount: 0,
  refundHistory: [],
  profileId,
  accountType: 'VISA',
  maskedAccountNumber: '************1111',
  orderId: 'ORD-77001',
  processedAt: CREATED,
  settled: false,
  settlementTime: '2030-05-20T16:00:00.000Z',
};

export const updated = { lastUpdated: UPDATED };
export const executionArn = (groupId: string) =>
  `arn:aws:states:us-east-1:123456789012:execution:scheduled-payments-dev-process-group:pg-${groupId}-1`;
