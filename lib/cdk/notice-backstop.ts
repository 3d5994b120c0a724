/**
 * The notices backstop in the cloud (docs/architecture.md "Notices"): every
 * NOTICE_BACKSTOP_JOB.intervalMinutes a function lists the processor's notices since the stored
 * cursor and applies them, tries the held notices and finishes the follow-ups a crash left; an
 * alarm when a run fails.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { NOTICE_BACKSTOP_JOB, noticeBackstopTimeoutSeconds } from '../../contract/notices';
import { processorOf } from './processor';
import { ScheduledJob, type ScheduledJobProps } from './scheduled-job';

type Props = Pick<ScheduledJobProps, 'stage' | 'table' | 'alarmTopic' | 'functionScope'>;

export class NoticeBackstop extends ScheduledJob {
  constructor(scope: Construct, id: string, props: Props) {
    super(scope, id, {
      ...props,
      handler: NOTICE_BACKSTOP_JOB.handler,
      timeout: Duration.seconds(noticeBackstopTimeoutSeconds(processorOf(scope))),
      schedule: events.Schedule.rate(Duration.minutes(NOTICE_BACKSTOP_JOB.intervalMinutes)),
      rule: {
        id: 'Every',
        nameSuffix: 'notices',
        description: "Applies the processor's notices (clearing, returns) since the stored cursor",
      },
      // A missed run is not retried: the next one, a minute later, reads from the same cursor.
      retryAttempts: 0,
      alarm: {
        name: 'notice-backstop-errors',
        period: Duration.minutes(15),
        description:
          'The notices backstop failed: bank clearings and returns wait for its next successful run (see the runbook)',
      },
    });
  }
}
