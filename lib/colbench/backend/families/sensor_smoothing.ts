/** Moving average of sensor readings after dropping spikes above a limit and raising low readings to a floor. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  sensor: string;
}

/** Reading lists with spikes between every pair of limits, low values near every floor and uneven decimals. */
const READINGS = [
  "[20.13, 21.4, 22.07, 23.9, 22.31, 21.05, 20.6]",
  "[10, 12, 65, 14, 16, 18, 20]",
  "[30, 95, 31, 32, 33, 34, 35, 36]",
  "[40, 41, 110, 42, 43, 44, 45]",
  "[50, 52, 140, 54, 56, 58, 60, 61]",
  "[25, 27, 170, 29, 31, 33, 36]",
  "[-4, 3, 7, 12, 18, 25, 31, 2]",
  "[1, 6, 11, 16, 21, 26, 31]",
  "[13.3, 8.7, 4.1, 17.9, 19.2, 22.6, 3.3]",
  "[71.5, 72.25, 88.4, 91.1, 103.7, 118.2, 121.3, 149.9]",
  "[55, 60, 66, 79, 81, 99, 101, 119, 121]",
  "[-1.5, 0.5, 9.5, 14.5, 19.5, 24.5]",
  "[33.33, 34.44, 35.55, 36.66, 37.77, 38.88]",
  "[5, 5, 5, 200, 5, 5]",
  "[42.1, 43.7, 41.9, 44.2, 45.8, 47.3, 46.1, 48.9, 50.2]",
  "[12.5, 13.75, 11.25, 14.5]",
  "[60.1, 61.7, 79.9, 80.1, 100.0, 100.1, 120.0, 150.0, 150.1]",
];

/** The `sensor_smoothing` family, registered in `./mod.ts`. */
export const sensorSmoothing: TaskFamily<Params> = {
  name: "sensor_smoothing",
  sampleParams: (rng) => ({
    fn: rng.pick(["smooth_readings", "smooth_series", "moving_average", "clean_readings"]),
    sensor: rng.pick(["greenhouse humidity", "river level", "room temperature", "air quality"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `Our ${p.sensor} sensor is noisy. Given its list of readings, return a smoothed list of values that I can plot.`,
      `I log ${p.sensor} readings and want to clean them up: the function takes the raw list of readings and returns a list of smoothed values.`,
    ]) + ` The signature of the function is: def ${p.fn}(readings)`,
  facts: [
    {
      id: "window",
      keywords: ["window", "average over", "readings to average", "moving average"],
      choices: () => [3, 2, 4, 5],
      commonDefault: 3,
      statements: (v) => [
        `Each smoothed value is the average of a window of ${v} consecutive readings.`,
        `Use a moving average over ${v} readings, only where a full window fits.`,
      ],
      questions:
        () => ["How big should the moving average window be?", "How many readings should I average over?"],
    },
    {
      id: "spike_limit",
      keywords: ["spike", "outlier", "glitch", "too high", "upper limit"],
      choices: () => [100, 50, 80, 120, 150],
      statements: (v) => [
        `Readings above ${v} are glitches; drop them before smoothing.`,
        `Throw away any reading greater than ${v} first.`,
      ],
      questions: () => ["What counts as a spike or outlier?", "Are some readings too high to trust?"],
    },
    {
      id: "floor",
      keywords: ["negative", "too low", "floor", "lower limit"],
      choices: () => [0, 5, 10, 15],
      statements: (v) => [
        `Any reading below ${v} should be raised to ${v} before averaging.`,
        `Clip low readings up to a floor of ${v}.`,
      ],
      questions: () => [
        "What about negative or very low readings?",
        "Is there a floor for readings that are too low?",
      ],
    },
    {
      id: "decimals",
      keywords: ["round", "decimal"],
      choices: () => [1, 0, 2],
      commonDefault: 1,
      statements: (v) => [
        `Round each smoothed value to ${v} decimal places.`,
        `I want the smoothed values rounded to ${v} decimals.`,
      ],
      questions: () => ["How should the values be rounded?", "How many decimals should the output have?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(readings):`,
      `    kept = [max(r, ${v.floor}) for r in readings if r <= ${v.spike_limit}]`,
      `    smoothed = []`,
      `    for i in range(len(kept) - ${v.window} + 1):`,
      `        window = kept[i:i + ${v.window}]`,
      `        smoothed.append(round(sum(window) / ${v.window}, ${v.decimals}))`,
      `    return smoothed`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const extra = Array.from({ length: 2 }, () => {
      const xs = Array.from({ length: 7 }, () => (rng.int(-50, 1800) / 10).toString());
      return `[${xs.join(", ")}]`;
    });
    return [...new Set([...READINGS, ...extra])].map((r) => `${p.fn}(${r})`);
  },
};
