/** Calories burned walking or running, with per-activity rates, a body-weight factor and an uncounted warm-up. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  app: string;
}

/** The `calorie_burn` family, registered in `./mod.ts`. */
export const calorieBurn: TaskFamily<Params> = {
  name: "calorie_burn",
  sampleParams: (rng) => ({
    fn: rng.pick(["calories_burned", "burned_calories", "workout_calories", "estimate_calories"]),
    app: rng.pick(["fitness app", "step-tracker website", "gym's member portal", "running club app"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I'm building a ${p.app} and need to estimate the calories someone burns in a workout. The activity is either "walking" or "running", and I also know how many minutes it lasted and their weight in kg.`,
      `For our ${p.app}, write a function that estimates calories burned from the activity ("walking" or "running"), the number of minutes and the person's weight in kg.`,
    ]) + ` The signature of the function is: def ${p.fn}(activity, minutes, weight_kg)`,
  facts: [
    {
      id: "walk_rate",
      keywords: ["walking", "walk"],
      choices: () => [4, 3, 5, 6],
      statements: (
        v,
      ) => [`Walking burns ${v} calories per minute.`, `Count ${v} calories for every minute of walking.`],
      questions:
        () => ["How many calories does walking burn per minute?", "What rate should I use for a walk?"],
    },
    {
      id: "run_rate",
      keywords: ["running", "run", "jogging"],
      choices: () => [11, 8, 10, 12, 14],
      statements: (
        v,
      ) => [`Running burns ${v} calories per minute.`, `Count ${v} calories for every minute of running.`],
      questions: () => ["How many calories does running burn per minute?", "What is the rate for a run?"],
    },
    {
      id: "ref_weight",
      keywords: ["body weight", "weight", "weigh", "heavier", "kg"],
      choices: () => [70, 60, 65, 75, 80],
      commonDefault: 70,
      statements: (v) => [
        `The per-minute rates are for someone who weighs ${v} kg, so scale by weight_kg / ${v}.`,
        `Those rates assume a body weight of ${v} kg; heavier people burn proportionally more.`,
      ],
      questions: () => ["How does body weight change the result?", "Do heavier people burn more?"],
    },
    {
      id: "warmup",
      keywords: ["warm up", "warmup", "first few minutes"],
      choices: () => [0, 5, 10, 15],
      statements: (v) => [
        `The first ${v} minutes are warm-up and don't count.`,
        `Don't count the ${v} minutes of warm-up at the start.`,
      ],
      questions: () => ["Does the warm-up count?", "Should the first few minutes be left out?"],
    },
    {
      id: "decimals",
      keywords: ["round", "decimal", "whole number"],
      choices: () => [0, 1, 2],
      commonDefault: 0,
      statements: (
        v,
      ) => [`Round the calories to ${v} decimal places.`, `I want the result rounded to ${v} decimals.`],
      questions: () => ["How should the calories be rounded?", "How many decimals should the result have?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(activity, minutes, weight_kg):`,
      `    if activity == "walking":`,
      `        rate = ${v.walk_rate}`,
      `    else:`,
      `        rate = ${v.run_rate}`,
      `    active = max(minutes - ${v.warmup}, 0)`,
      `    calories = rate * active * weight_kg / ${v.ref_weight}`,
      `    return round(calories, ${v.decimals})`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const calls = new Set<string>();
    const minutes = [3, 7, 12, 17, 20, 25, 30, 33, 45, 47, 60, 75];
    const weights = [58.5, 63, 67, 71.3, 77, 82.4, 90, 70];
    for (const m of minutes) {
      calls.add(`${p.fn}("walking", ${m}, ${rng.pick(weights)})`);
      calls.add(`${p.fn}("running", ${m}, ${rng.pick(weights)})`);
    }
    calls.add(`${p.fn}("walking", 40, 73)`);
    calls.add(`${p.fn}("running", 40, 61)`);
    return [...calls];
  },
};
