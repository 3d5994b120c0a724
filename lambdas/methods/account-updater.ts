/**
 * The daily account updater job (EventBridge once a day, ACCOUNT_UPDATER_JOB.schedule; locally
 * `POST /__local/events/account-updater`; by hand `npm run admin -- account-updater`): applies the
 * processor's account updates to saved methods, each once (core/account-updater.ts). Bounded: no
 * update is started after ACCOUNT_UPDATER_JOB.budgetSeconds; the next run goes on from there.
 */
import { ACCOUNT_UPDATER_JOB } from '#contract/account-updater';
import { runAccountUpdater, type AccountUpdaterReport } from '#core/account-updater';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export const handler = taskHandler((): Promise<AccountUpdaterReport> =>
  runAccountUpdater(clock.now(), clock.nowMs() + ACCOUNT_UPDATER_JOB.budgetSeconds * 1000),
);
