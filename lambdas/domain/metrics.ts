/**
 * A count as one CloudWatch embedded-metric-format (EMF) log line: CloudWatch Logs turns it into
 * the metric `name` in `namespace`, with the stage as its one dimension, without an API call. The
 * metric's names come from the contract, which the CDK alarm on it reads too; shared/metrics.ts
 * writes the line.
 */
interface CountMetric {
  readonly namespace: string;
  readonly name: string;
  readonly dimension: string;
}

export function countMetricLine(metric: CountMetric, count: number, stage: string, at: Date): string {
  const { namespace, name, dimension } = metric;
  return JSON.stringify({
    _aws: {
      Timestamp: at.getTime(),
      CloudWatchMetrics: [
        { Namespace: namespace, Dimensions: [[dimension]], Metrics: [{ Name: name, Unit: 'Count' }] },
      ],
    },
    [dimension]: stage,
    [name]: count,
  });
}
