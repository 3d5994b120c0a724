#!/usr/bin/env node
/** CDK app: `npm run synth`, `npx cdk deploy ScheduledPayments-dev -c stage=dev …` (docs/operating.md "Deploy"; context keys in lib/cdk/app.ts). */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addServiceStacks } from '../lib/cdk/app';
import { withoutBundlingNotices } from '../lib/cdk/quiet-bundling';

// `cdk synth -q` quiet: no line per bundled function (warnings and errors still show).
withoutBundlingNotices();
const app = new App();
addServiceStacks(app);
// `-c nag=true`: the AwsSolutions pack at synth (the infra tests always run it).
if (String(app.node.tryGetContext('nag')) === 'true')
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
