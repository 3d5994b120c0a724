/**
 * A Stripe stage's inbound webhook route, `POST /processor-events/stripe` (contract/notices.ts
 * PROCESSOR_EVENTS): outside the merchants' API, so without the Cognito authorizer (Stripe signs
 * each body instead, checked by the function before it reads anything), on the stage's API and
 * behind its WAF and throttling. Its function applies the notices (the table actions its code
 * uses), may call Stripe (a dispute's charge: the processor's settings) and alone reads the
 * endpoint's signing secret, one Secrets Manager secret per stage that the operator puts
 * (docs/operating.md "Going live with Stripe").
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { PROCESSOR_EVENTS } from '../../contract/notices';
import type { Stage } from '../../contract/stage';
import { bindTable } from './access';
import { lambdaProxy } from './api';
import { bindProcessor } from './processor';
import { handlerSlug, ServiceFunction } from './service-function';

interface StripeEventsRouteProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly api: apigw.RestApi;
  /** @default - this construct */
  readonly functionScope?: Construct;
}

export class StripeEventsRoute extends Construct {
  readonly secret: secretsmanager.Secret;
  readonly method: apigw.Method;

  constructor(scope: Construct, id: string, props: StripeEventsRouteProps) {
    super(scope, id);
    const { stage } = props;
    const entry = PROCESSOR_EVENTS.stripe;
    this.secret = new secretsmanager.Secret(this, 'SigningSecret', {
      secretName: `scheduled-payments/${stage}/stripe-webhook-secret`,
      description: `The signing secret (whsec_…) of ${stage}'s webhook endpoint at Stripe; put by the operator`,
      // A placeholder no Stripe signature matches until the operator puts the endpoint's secret.
      generateSecretString: { passwordLength: 32, excludePunctuation: true, includeSpace: false },
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "A webhook endpoint's signing secret is rolled at Stripe (its Dashboard), which Secrets Manager cannot do; the operator puts the new one here (docs/operating.md).",
    });
    const fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(entry.handler), {
      handler: entry.handler,
      stage,
      timeout: Duration.seconds(entry.timeoutSeconds),
    }).fn;
    bindTable(fn, props.table, entry.handler);
    bindProcessor(fn, stage);
    fn.addEnvironment('PROCESSOR_WEBHOOK_SECRET', `secretsmanager:${this.secret.secretArn}`);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.secret.secretArn],
      }),
    );
    this.method = props.api.root.resourceForPath(entry.path).addMethod(entry.method, lambdaProxy(fn), {
      operationName: 'ReceiveStripeEvents',
      authorizationType: apigw.AuthorizationType.NONE,
    });
    const why =
      "Stripe cannot hold a Cognito token: it signs each webhook's body (Stripe-Signature, an HMAC with the endpoint's secret), which the function verifies before it reads anything, answering 400 otherwise. The stage's throttling and WAF cover it.";
    Validations.of(this.method).acknowledge({ id: 'AwsSolutions-APIG4', reason: why });
    Validations.of(this.method).acknowledge({ id: 'AwsSolutions-COG4', reason: why });
    fn.addPermission('InvokeReceiveStripeEvents', {
      principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      action: 'lambda:InvokeFunction',
      sourceArn: props.api.arnForExecuteApi(entry.method, entry.path, stage),
    });
  }
}
