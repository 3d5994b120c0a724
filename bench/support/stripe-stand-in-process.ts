/**
 * The Stripe stand-in in a process of its own, for the bench's processor-cpu section
 * (bench/sections/processor-cpu.ts): the bench process then spends only the adapter's CPU (and
 * its `stripe` package's), never the stand-in's. Arguments: the secret key and the connected
 * account to serve. Prints `{"port": <port>}` on a line once listening; stops when its stdin ends.
 */
import { startStripeStandIn } from '../../lib/local/stripe/server';

async function main(): Promise<void> {
  const [secretKey, account] = process.argv.slice(2);
  if (secretKey === undefined || account === undefined)
    throw new Error('usage: stripe-stand-in-process.ts <secret key> <account>');
  const standIn = await startStripeStandIn({ secretKey, accounts: [account] });
  process.stdout.write(`${JSON.stringify({ port: standIn.port })}\n`);
  process.stdin.on('end', () => {
    void standIn.close().finally(() => process.exit(0));
  });
  process.stdin.resume();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
