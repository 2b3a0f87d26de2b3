/** Test fixtures: synthetic tasks drawn without the Python harness (tests are the first pool calls), and task scripts run as child processes. */
import { drawDraft, toTask } from "../lib/colbench/backend/generate.ts";
import { FAMILIES, familyByName } from "../lib/colbench/backend/families/mod.ts";
import type { BackendTask } from "../lib/colbench/backend/schema.ts";
import { Rng } from "../lib/util/rng.ts";

/** A synthetic task of `family` (default: the first registered family). */
export function fixtureTask(seed = 0, family = FAMILIES[0].name): BackendTask {
  const draft = drawDraft(familyByName(family), Rng.derive("fixture", family, seed));
  return toTask(draft, `fixture-${family}-${seed}`, draft.pool.slice(0, 10));
}

/** One fixture task per registered family. */
export function fixtureTasks(seed = 0): BackendTask[] {
  return FAMILIES.map((f) => fixtureTask(seed, f.name));
}

/**
 * A task script (`tasks/<name>.ts`) run in a child process with `deno run -A`, as the test of a CLI run;
 * stderr is piped (its stage lines are what resume tests read), stdout piped unless `stdout: "null"`.
 */
export function taskProcess(
  script: string,
  args: readonly string[],
  { env = {}, stdout = "piped" }: { env?: Record<string, string>; stdout?: "piped" | "null" } = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `tasks/${script}.ts`, ...args],
    env,
    stdout,
    stderr: "piped",
  }).spawn();
}
