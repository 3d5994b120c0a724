/**
 * LOCAL_HOURLY_TICK: `on` (the default) runs the hourly rule's timer, `off` leaves the hourly event
 * to `POST /__local/events/hourly` alone. The e2e runtimes turn it off: they deliver their own ticks
 * for chosen slots, and a real hour's tick supervising the same groups at the same moment raced
 * them (CI, 2026-11-26 17:00: a stopped group re-driven by the real tick, not the test's).
 */
export const hourlyTickEnabled = (value: string | undefined): boolean =>
  timerEnabled('LOCAL_HOURLY_TICK', value);

/** A local timer's on/off setting: on unless `off` (unset or empty is on); any other value throws. */
export function timerEnabled(variable: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw new Error(`${variable} must be on or off (got ${value})`);
}

/**
 * `run` at each time `nextAfter(now)` gives (epoch ms), with that time, on a timer that keeps no
 * process alive: the local form of an EventBridge schedule rule.
 */
function onSchedule(
  nextAfter: (now: Date) => number,
  run: (time: string) => Promise<unknown>,
  name: string,
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const next = nextAfter(new Date());
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

/** The hourly EventBridge rule (cron(0 * * * ? *)): `run` at each UTC hour boundary. */
export const everyHour = (run: (time: string) => Promise<unknown>, name: string): { stop: () => void } =>
  onSchedule((now) => Math.floor(now.getTime() / 3_600_000) * 3_600_000 + 3_600_000, run, name);

/** An hourly EventBridge rule at a minute (cron(m * * * ? *)): `run` at that minute of each UTC hour. */
export const everyHourAt = (
  minute: string | number,
  run: (time: string) => Promise<unknown>,
  name: string,
): { stop: () => void } =>
  onSchedule(
    (now) => {
      const at = Math.floor(now.getTime() / 3_600_000) * 3_600_000 + Number(minute) * 60_000;
      return at > now.getTime() ? at : at + 3_600_000;
    },
    run,
    name,
  );

/** A daily EventBridge rule: `run` at the schedule's UTC hour and minute each day. */
export function everyDay(
  schedule: { hour: string | number; minute: string | number },
  run: (time: string) => Promise<unknown>,
  name: string,
): { stop: () => void } {
  return onSchedule(
    (now) => {
      const at = (day: number) =>
        Date.UTC(
          now.getUTCFullYear(),
          now.getUTCMonth(),
          day,
          Number(schedule.hour),
          Number(schedule.minute),
        );
      return at(now.getUTCDate()) > now.getTime() ? at(now.getUTCDate()) : at(now.getUTCDate() + 1);
    },
    run,
    name,
  );
}
