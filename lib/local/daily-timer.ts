/**
 * A daily EventBridge rule as the local runtime keeps it: `run` at the schedule's UTC hour and
 * minute each day (with the time it was due), on a timer that keeps no process alive.
 */
export function everyDay(
  schedule: { hour: string | number; minute: string | number },
  run: (time: string) => Promise<unknown>,
  name: string,
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const now = new Date();
    const at = (day: number) =>
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), day, Number(schedule.hour), Number(schedule.minute));
    const next = at(now.getUTCDate()) > now.getTime() ? at(now.getUTCDate()) : at(now.getUTCDate() + 1);
    timer = setTimeout(
      () => {
        run(new Date(next).toISOString()).catch((error: unknown) =>
          console.error(`local ${name} failed`, error),
        );
        arm();
      },
      next - Date.now() + 50,
    );
    timer.unref();
  };
  arm();
  return { stop: () => clearTimeout(timer) };
}
