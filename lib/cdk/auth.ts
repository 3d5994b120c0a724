/**
 * OAuth 2.0 client-credentials authentication (docs/product.md#authentication-and-scopes): a
 * Cognito user pool with no users, a resource server whose one scope every route requires, a
 * hosted domain for the token endpoint, and one machine-to-machine app client.
 */
import { Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { apiScope, scopeHost, TOKEN_VALIDITY_SECONDS, type Stage } from '../../contract/stage';
import { SERVICE_NAME } from './service-function';

interface ServiceAuthProps {
  readonly stage: Stage;
  /**
   * Last part of the Cognito domain prefix `scheduled-payments-<stage>-<suffix>`. Prefixes are
   * global per region, so the default derives one from this stack's id, which works in any account
   * without knowing it at synth time.
   * @default - the first 8 hex digits of the stack id's UUID
   */
  readonly domainSuffix?: string;
  /**
   * Keep the user pool (and refuse its deletion): its app clients hold the integrators' secrets.
   * @default - true in prod, false otherwise
   */
  readonly retain?: boolean;
}

export class ServiceAuth extends Construct {
  readonly userPool: cognito.UserPool;
  readonly resourceServer: cognito.UserPoolResourceServer;
  readonly domain: cognito.UserPoolDomain;
  readonly client: cognito.UserPoolClient;
  /** The scope every route requires: `apiScope(stage)` from contract/stage.ts. */
  readonly scope: string;
  /** The OAuth 2.0 token endpoint, `https://<prefix>.auth.<region>.amazoncognito.com/oauth2/token`. */
  readonly tokenUrl: string;

  constructor(scope: Construct, id: string, props: ServiceAuthProps) {
    super(scope, id);
    const { stage } = props;
    const retain = props.retain ?? stage === 'prod';
    this.scope = apiScope(stage);

    this.userPool = new cognito.UserPool(this, 'UserPool', {
      userPoolName: `${SERVICE_NAME}-${stage}`,
      // Only machine clients, created by operators; nobody signs up or signs in as a user.
      selfSignUpEnabled: false,
      accountRecovery: cognito.AccountRecovery.NONE,
      deletionProtection: retain,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    // apiScope(stage) is `<scopeHost(stage)>/<scope name>`: take the name from the single source.
    const scopeName = this.scope.slice(scopeHost(stage).length + 1);
    this.resourceServer = this.userPool.addResourceServer('ResourceServer', {
      identifier: scopeHost(stage),
      userPoolResourceServerName: `${SERVICE_NAME}-${stage}`,
      scopes: [
        new cognito.ResourceServerScope({ scopeName, scopeDescription: 'Call the Scheduled Payments API' }),
      ],
    });

    const suffix =
      props.domainSuffix ?? Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Stack.of(this).stackId))));
    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: `${SERVICE_NAME}-${stage}-${suffix}` },
    });
    this.tokenUrl = `${this.domain.baseUrl()}/oauth2/token`;

    this.client = this.userPool.addClient('ClientCredentialsClient', {
      userPoolClientName: `${SERVICE_NAME}-${stage}-client-credentials`,
      generateSecret: true,
      oAuth: {
        flows: { clientCredentials: true },
        // The literal scope string (not a token), so the template states exactly what is allowed.
        scopes: [cognito.OAuthScope.custom(this.scope)],
      },
      accessTokenValidity: Duration.seconds(TOKEN_VALIDITY_SECONDS),
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });
    // The client names the resource server's scope by value, so order their creation explicitly.
    this.client.node.addDependency(this.resourceServer);
  }
}
