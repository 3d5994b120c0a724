/**
 * The functions' CloudWatch metrics: each an Embedded Metric Format line on stdout, which
 * CloudWatch Logs turns into the metric an alarm watches. The local runtime sets
 * `EMIT_METRICS=false`: no CloudWatch reads its console, a person does (the same numbers are
 * logged where they matter: a stuck group is an error log line).
 */
import { config } from './config';

export function emitMetricLine(line: string): void {
  if (config().emitMetrics) process.stdout.write(`${line}\n`);
}
