/**
 * Preference data in the format the reference pipeline feeds OpenRLHF's `train_dpo` (and its fork's
 * `--mean_log_prob --response_template` critic training): rows of `chosen` / `rejected` **strings**,
 * already in the Llama-3.1 chat template, with no prompt field. OpenRLHF tokenizes them as they are
 * (`add_special_tokens=False`) and appends `" " + eos` to a string that does not end with it.
 *
 * - **critic**: `In light that the final answer is: {reference code}.` + the last agent turn's prompt
 *   (the whole dialogue before it) + its raw output. The prefix sits before `<|begin_of_text|>`, as in
 *   the reference.
 * - **actor**: the state's prompt + candidate + `<|eot_id|>`. The reference trains on whole strings, so
 *   its NLL term covers the prompt too; `splitPrompt` writes a `prompt` field instead (use OpenRLHF's
 *   `--prompt_key prompt`) so that only the turn is trained on.
 *
 * Prompts recorded in the Llama-3.1 template (released data) are used byte for byte; the kit's own
 * dialogues are rendered into it (see ./prompts.ts).
 *
 * @module
 */
import { z } from "zod";
import type { TrajectoryPair } from "../rl/pairs.ts";
import { agentTurnIndices, type Trajectory } from "../colbench/backend/schema.ts";
import { validate } from "../util/jsonl.ts";
import type { ActorPair } from "./actor_pairs.ts";
import { LLAMA3 } from "../llm/llama3.ts";
import { turnPrompt } from "./prompts.ts";
import { referenceInfo } from "../llm/reference_info.ts";

/**
 * One row of an OpenRLHF preference dataset (the keys of `--chosen_key chosen --rejected_key rejected`).
 *
 * @example
 * ```ts
 * import { OpenRlhfPreference } from "./openrlhf.ts";
 * OpenRlhfPreference.parse({
 *   chosen: "<|begin_of_text|>…good<|eot_id|>",
 *   rejected: "<|begin_of_text|>…bad<|eot_id|>",
 * });
 * ```
 */
export const OpenRlhfPreference = z.strictObject({
  prompt: z.string().min(1).optional().describe(
    "only with splitPrompt: the shared context (--prompt_key prompt); the reference's rows have none",
  ),
  chosen: z.string().min(1).describe(
    "the preferred sequence as one templated string (without a prompt field: the whole sequence)",
  ),
  rejected: z.string().min(1).describe("the dispreferred sequence, the same way"),
}).describe("OpenRLHF preference row (chosen / rejected strings)");
/** One row of an OpenRLHF preference dataset. */
export type OpenRlhfPreference = z.infer<typeof OpenRlhfPreference>;

/** Options of {@link openrlhfCriticRows}. */
export interface OpenRlhfCriticOptions {
  /** System prompt for dialogues that recorded none (default: the kit's agent instructions). */
  system?: string;
  /** Put the reference-code sentence in front (default true; false: the no-info critic, multi-turn DPO). */
  withInfo?: boolean;
}

/** A trajectory as the reference critic reads it: its last agent turn's prompt and raw output. */
function criticText(trajectory: Trajectory, options: OpenRlhfCriticOptions): string {
  const turns = agentTurnIndices(trajectory);
  const last = turns[turns.length - 1];
  if (last === undefined) throw new RangeError("openrlhfCriticRows: a trajectory without an agent turn");
  const turn = trajectory.dialogue_history[last];
  const prefix = (options.withInfo ?? true) ? referenceInfo(trajectory.task) : "";
  return prefix + turnPrompt(trajectory, last, options.system) + (turn.output ?? turn.content);
}

/**
 * Critic pairs as OpenRLHF rows; `chosen` is the higher-reward trajectory.
 *
 * @example
 * ```ts
 * import { criticPairs } from "../rl/pairs.ts";
 * import { openrlhfCriticRows } from "./openrlhf.ts";
 * const task = { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: { t: "f()" } };
 * const roll = (answer: string, reward: number) => ({
 *   task,
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: answer }],
 *   answer,
 *   reward,
 * });
 * const [row] = openrlhfCriticRows(criticPairs([roll("def f():\n    return 1\n", 1), roll("nope", 0)]));
 * row.chosen.startsWith("In light that the final answer is:"); // true
 * ```
 */
export function openrlhfCriticRows(
  pairs: readonly TrajectoryPair[],
  options: OpenRlhfCriticOptions = {},
): OpenRlhfPreference[] {
  return pairs.map((pair, i) =>
    validate(
      OpenRlhfPreference,
      {
        chosen: criticText(pair.chosen, options),
        rejected: criticText(pair.rejected, options),
      },
      "openrlhfCriticRows",
      i + 1,
    )
  );
}

/** Options of {@link openrlhfActorRows}. */
export interface OpenRlhfActorOptions {
  /** System prompt for dialogues that recorded none (default: the kit's agent instructions). */
  system?: string;
  /** Write the state's prompt as its own field (loss on the turn only) instead of inside both strings. */
  splitPrompt?: boolean;
}

/**
 * Turn-level actor pairs as OpenRLHF rows.
 *
 * @example
 * ```ts
 * import { openrlhfActorRows } from "./openrlhf.ts";
 * const trajectory = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: "q" }],
 *   answer: "",
 * };
 * const [row] = openrlhfActorRows([
 *   { trajectory, at: 1, state: 0, chosen: "What rate?", rejected: "ok", scores: [0.9, 0.1] },
 * ]);
 * row.chosen.endsWith("What rate?<|eot_id|>"); // true
 * ```
 */
export function openrlhfActorRows(
  pairs: readonly ActorPair[],
  options: OpenRlhfActorOptions = {},
): OpenRlhfPreference[] {
  return pairs.map((pair, i) => {
    const prompt = turnPrompt(pair.trajectory, pair.at, options.system);
    const [chosen, rejected] = [pair.chosen, pair.rejected].map((turn) => turn + LLAMA3.eot);
    const row = options.splitPrompt
      ? { prompt, chosen, rejected }
      : { chosen: prompt + chosen, rejected: prompt + rejected };
    return validate(OpenRlhfPreference, row, "openrlhfActorRows", i + 1);
  });
}
