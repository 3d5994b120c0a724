/**
 * `spay sale show <transactionId>`: one sale (of the transactions API or of a scheduled payment)
 * as a card: its answer, its money, a bank debit's clearing and return, a card charge's dispute,
 * its refunds.
 */
import Table from 'cli-table3';
import type { Command } from 'commander';
import type { Schemas } from '../../client/index';
import { clientOf, loadSession } from './session';
import { disputeText, readable } from './views';

type Transaction = Schemas['Transaction'];

const money = (n: number) => n.toFixed(2);

/** A bank debit's clearing as a line: `yes, 2030-06-05 14:00:00 UTC`, `not yet`; '' for a card. */
const clearing = (t: Transaction): string =>
  t.cleared === undefined ? '' : t.cleared ? `yes, ${readable(t.clearedAt)}` : 'not yet';

/** The sale's fields a tester checks, one a row (empty ones left out), within 80 columns. */
export function saleCard(t: Transaction): string {
  const rows: [string, string][] = [
    ['Sale', t.transactionId],
    [
      'Status',
      [t.status, t.status === 'Returned' ? t.return?.code : t.responseCode].filter(Boolean).join(' '),
    ],
    ['Message', t.responseMessage],
    ['Amount', money(t.amount)],
    ['Approved', money(t.approvedAmount)],
    ['Method', [t.accountType, t.maskedAccountNumber].filter(Boolean).join(' ')],
    ['Processed', readable(t.processedAt)],
    ['Payment', t.paymentId ?? ''],
    ['Order', t.orderId ?? ''],
    ['Cleared', clearing(t)],
    ...(t.return
      ? ([
          [
            'Returned',
            `${t.return.code} ${t.return.reason} (${t.return.category}), ${readable(t.return.returnedAt)}`,
          ],
          ...(t.return.afterRefund ? [['After refund', 'yes: settle it with the payor']] : []),
        ] as [string, string][])
      : []),
    ...(t.dispute
      ? ([
          ['Dispute', `${disputeText(t.dispute)}, opened ${readable(t.dispute.openedAt)}`],
          ...(t.dispute.evidenceDueBy ? [['Evidence by', readable(t.dispute.evidenceDueBy)]] : []),
        ] as [string, string][])
      : []),
    ['Refunded', t.refundCount > 0 ? `${money(t.refundedAmount)} in ${t.refundCount}` : ''],
    ['Refundable', money(t.availableRefundAmount)],
  ];
  const card = new Table({ style: { head: [], border: [] }, wordWrap: true, colWidths: [14, 62] });
  for (const [label, value] of rows) if (value !== '') card.push({ [label]: value });
  return card.toString();
}

export function saleCommands(program: Command): void {
  const sale = program.command('sale').description('sales (transactions)');
  sale
    .command('show <transactionId>')
    .description('one sale: its answer, a debit’s clearing or return, a dispute, refunds')
    .option('--json', 'print the API’s answer as JSON')
    .action(async (transactionId: string, options: { json?: boolean }) => {
      const session = loadSession();
      const found = await clientOf(session).getTransaction(session.mid, transactionId);
      console.log(options.json ? JSON.stringify(found, null, 2) : saleCard(found));
    });
}
