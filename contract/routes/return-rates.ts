/** A merchant's Nacha return rates of its bank debits. */
import { returnRatesSchema } from '../schemas/return-rates';
import { M } from './groups';
import { route } from './types';

export const returnRateRoutes = {
  GetReturnRates: route({
    id: 'GetReturnRates',
    method: 'GET',
    path: `${M}/return-rates`,
    handler: 'return-rates/get-return-rates',
    status: 200,
    summary: "Get the merchant's bank-debit return rates (Nacha)",
    description: `The merchant's return rates of the last 60 UTC days up to today, as Nacha watches them: of the bank debits (CHECKING and SAVINGS) approved in the window, counted by each debit's date, how many were returned as **unauthorized** (limit 0.5%), as **administrative** (limit 3%) and in all (**overall**, limit 15%). A return counts on its debit's day however late it comes, so a debit and its returns leave the window together; a debit voided before its cut-off never reached the bank and is not counted. Each rate is rounded to 4 decimals (0 when there are no debits); each \`status\` is \`ok\`, \`warning\` (at least half the limit), \`alert\` (at least 80% of it) or \`over\` (above it), from the exact counts; the top \`status\` is the worst.

Read live from the merchant's counters. A change of the top status is announced by the event \`merchant.return_rates_changed\` (whose \`data\` is this body) when the service recomputes the rates: within the hour after a return, and each day as old debits leave the window. A merchant above a limit must act before Nacha does: see docs/product.md "Return rates". No query parameters: any is 400.`,
    response: { schema: returnRatesSchema, description: "The merchant's return rates." },
  }),
};
