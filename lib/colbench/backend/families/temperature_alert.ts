/** Temperature readings to alert levels with cold, warning and critical thresholds and a sensor offset. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  place: string;
}

const COLD = [-5, 0, 3, 5];
const WARN = [26, 28, 30, 32, 35];
const CRITICAL = [38, 40, 42, 45];
const OFFSETS = [1, 2, 3, 4];

/** The `temperature_alert` family, registered in `./mod.ts`. */
export const temperatureAlert: TaskFamily<Params> = {
  name: "temperature_alert",
  sampleParams: (rng) => ({
    fn: rng.pick(["temperature_alert", "alert_level", "check_temperature"]),
    place: rng.pick(["server room", "greenhouse", "warehouse", "bakery kitchen"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `We monitor the ${p.place} with a sensor and I need a function that turns a reading in degrees Celsius into an alert level: "cold", "normal", "warning" or "critical".`,
      `Can you write the alerting logic for our ${p.place} thermometer? Given a temperature reading in Celsius, return "critical", "warning", "normal" or "cold".`,
    ]) + ` The signature of the function is: def ${p.fn}(reading)`,
  facts: [
    {
      id: "cold_below",
      keywords: ["cold", "too cold", "cold alert", "freezing"],
      choices: () => COLD,
      commonDefault: 0,
      statements: (v) => [
        `Anything below ${v} degrees counts as "cold".`,
        `Readings under ${v} degrees are "cold".`,
      ],
      questions: () => ["When is it too cold?", "Below what temperature is it cold?"],
    },
    {
      id: "warn_at",
      keywords: ["warning", "warn"],
      choices: () => WARN,
      statements: (v) => [`A "warning" starts at ${v} degrees.`, `From ${v} degrees up it's a "warning".`],
      questions: () => ["At what temperature does a warning start?", "When should it warn?"],
    },
    {
      id: "critical_at",
      keywords: ["critical"],
      choices: () => CRITICAL,
      statements: (
        v,
      ) => [`It's "critical" at ${v} degrees or more.`, `From ${v} degrees up it's "critical".`],
      questions: () => ["When does it become critical?", "What temperature is critical?"],
    },
    {
      id: "offset",
      keywords: ["offset", "calibration", "calibrate", "correction", "sensor error"],
      choices: () => OFFSETS,
      statements: (v) => [
        `Add ${v} degrees to each reading first to correct the sensor.`,
        `The sensor reads ${v} degrees too low, so add ${v} before checking.`,
      ],
      questions: () => [
        "Does the sensor need a calibration offset?",
        "Is there a correction to apply to the readings?",
      ],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(reading):`,
      `    reading = reading + ${v.offset}`,
      `    if reading >= ${v.critical_at}:`,
      `        return "critical"`,
      `    if reading >= ${v.warn_at}:`,
      `        return "warning"`,
      `    if reading < ${v.cold_below}:`,
      `        return "cold"`,
      `    return "normal"`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    // Every threshold choice reached exactly after every offset choice, plus a few plain readings.
    const readings = new Set<number>([-20, 15, 20, 50]);
    for (const t of [...COLD, ...WARN, ...CRITICAL]) for (const o of OFFSETS) readings.add(t - o);
    return rng.shuffle([...readings]).map((r) => `${p.fn}(${r})`);
  },
};
