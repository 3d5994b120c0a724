/**
 * `cdk synth` and `cdk deploy` bundle every function with esbuild. esbuild's report of each
 * bundle's files and sizes is off (`logLevel` in ServiceFunction.bundling: warnings and errors
 * only), and CDK's own "Bundling asset <path>..." line per function (some 70 lines that say
 * nothing when all goes well) is dropped here, so that `cdk synth -q` prints nothing but
 * warnings and errors. A bundling failure still shows: CDK throws it with the asset's path.
 */
const NOTICE = /^Bundling asset \S+\.\.\.\r?\n$/;

/** Drops CDK's "Bundling asset ..." lines from this process's stderr; the rest passes through. */
export function withoutBundlingNotices(): void {
  const write = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && NOTICE.test(chunk)
      ? true
      : write(chunk, ...rest)) as typeof process.stderr.write;
}
