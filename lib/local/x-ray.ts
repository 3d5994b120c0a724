/**
 * The local runtime records no traces: outside Lambda the Powertools Tracer turns itself off. Yet
 * loading it loads the X-Ray SDK, whose default (automatic) mode creates a cls-hooked namespace at
 * load: an async hook with a destroy callback on every promise of the process, which cost the
 * runtime a tenth of its CPU per API request (the bench's `--profile`: registerDestroyHook). In
 * manual mode the SDK creates none; imported first by lib/local/runtime.ts, before any handler
 * loads the Tracer, and by bench/run.ts, whose raw side makes the same calls through the stores.
 * Deployed functions do not run this: in Lambda the Tracer keeps its automatic mode, whose
 * context its segments need.
 */
process.env.AWS_XRAY_MANUAL_MODE ??= 'true';

export {};
