/**
 * A CDK app with one service function, bundled for real as `cdk synth` bundles it, through the
 * same quieting as bin/app.ts (test/infra/quiet-synth.test.ts runs it and reads its output).
 * Usage: tsx test/support/cdk/one-function-app.ts <outdir>
 */
import { App, Stack } from 'aws-cdk-lib';
import { withoutBundlingNotices } from '#lib/cdk/quiet-bundling';
import { ServiceFunction } from '#lib/cdk/service-function';

withoutBundlingNotices();
const app = new App({ outdir: process.argv[2] });
new ServiceFunction(new Stack(app, 'QuietBundling'), 'Function', {
  handler: 'payors/get-payor',
  stage: 'dev',
});
app.synth();
