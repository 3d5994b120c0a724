/** `spay login` (local runtime by default, or a deployed stage) and `spay settle` (the test clock). */
import type { Command } from 'commander';
import {
  clientOf,
  DEFAULT_MID,
  LOCAL_CLIENT,
  localTarget,
  loadSession,
  saveSession,
  stageTarget,
  type Session,
} from './session';
import { print } from './layout';
import { readable } from './views';

interface LoginOptions {
  dataDir: string;
  outputs?: string;
  stack?: string;
  clientId?: string;
  clientSecret?: string;
  mid: string;
}

export function loginCommands(program: Command): void {
  program
    .command('login')
    .description(
      'log in: the local runtime (npm start) by default, or a deployed stage from its CDK outputs file',
    )
    .option(
      '--data-dir <dir>',
      'the local runtime’s data directory (its runtime.json names its ports)',
      process.env.DATA_DIR ?? '.data',
    )
    .option('--outputs <file>', 'a stage: `cdk deploy --outputs-file` output (ApiUrl, TokenUrl)')
    .option('--stack <name>', 'the stack in the outputs file, when it holds several')
    .option('--client-id <id>', 'app client id (local default: local-tester)')
    .option('--client-secret <secret>', 'app client secret (or SPAY_CLIENT_SECRET)')
    .option('--mid <mid>', 'the merchant to act for', DEFAULT_MID)
    .action(async (options: LoginOptions) => {
      let session: Session;
      if (options.outputs) {
        const clientSecret = options.clientSecret ?? process.env.SPAY_CLIENT_SECRET;
        if (!options.clientId || !clientSecret)
          throw new Error('a stage needs --client-id and --client-secret (or SPAY_CLIENT_SECRET)');
        session = {
          ...stageTarget(options.outputs, options.stack),
          clientId: options.clientId,
          clientSecret,
          mid: options.mid,
        };
      } else {
        session = {
          target: 'local',
          ...localTarget(options.dataDir),
          clientId: options.clientId ?? LOCAL_CLIENT.clientId,
          clientSecret: options.clientSecret ?? LOCAL_CLIENT.clientSecret,
          mid: options.mid,
        };
      }
      // A token proves the credentials before they are kept.
      await clientOf(session).getToken();
      saveSession(session);
      print(
        `Logged in to ${session.target} (${session.baseUrl})\nas ${session.clientId}, merchant ${session.mid}`,
      );
    });

  program
    .command('settle')
    .description("test clock (non-production, test MIDs): settle the merchant's approved sales now")
    .action(async () => {
      const session = loadSession();
      const api = clientOf(session);
      // A call settles up to 2,000 sales: again until none is left.
      let result = await api.settleNow(session.mid);
      let settled = result.settledCount;
      while (result.more) {
        result = await api.settleNow(session.mid);
        settled += result.settledCount;
      }
      const notices = result.noticesBroughtForward;
      print(
        `Settled ${settled} sale${settled === 1 ? '' : 's'} of ${result.merchantId} at ${readable(result.settledAt)};\nprocessed groups go on to their receipts within a minute` +
          (notices > 0
            ? `\n${notices} bank notice${notices === 1 ? '' : 's'} (clearing or return) due now: applied within a minute`
            : ''),
      );
    });
}
