#!/usr/bin/env node
/** CDK app: `npm run synth`, `npx cdk deploy ScheduledPayments-dev` (see lib/cdk/app.ts for context keys). */
import { App } from 'aws-cdk-lib';
import { addServiceStacks } from '../lib/cdk/app';

const app = new App();
addServiceStacks(app);
app.synth();
