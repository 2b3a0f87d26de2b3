/**
 * Preference data in TRL's conversational format (`DPOTrainer`, `trl dpo`): each row has `prompt`,
 * `chosen` and `rejected`, each a list of `{role, content}` messages; the trainer applies the model's chat
 * template and trains on the completions. Two datasets:
 *
 * - **critic** (trajectory pairs from `criticPairs`): the prompt is the system message and the problem
 *   description; each completion is the rest of one trajectory (agent turns and the human's replies). The
 *   critic's training-time information, the reference code, leads the system message (SWEET-RL's
 *   asymmetric critic). Without it (`withInfo: false`) the same rows are the multi-turn DPO baseline's.
 * - **actor** (turn-level pairs, `ActorPair`): the prompt is the system message and the dialogue up to
 *   the state; the completions are the two candidate turns. No training-time information: the actor sees
 *   only what it sees at test time.
 *
 * TRL computes log-probabilities over every completion token, so for critic rows the human's replies
 * inside a completion count too; the reference fork masks agent turns only. That is the format's limit.
 *
 * @module
 */
import { z } from "zod";
import type { TrajectoryPair } from "../rl/pairs.ts";
import { validate } from "../util/jsonl.ts";
import type { ActorPair } from "./actor_pairs.ts";
import { ChatMessage, chatMessages } from "../llm/messages.ts";
import { systemPromptOf } from "./prompts.ts";
import { referenceInfo } from "../llm/reference_info.ts";

const Messages = z.array(ChatMessage);

/**
 * One row of TRL's conversational preference dataset.
 *
 * @example
 * ```ts
 * import { TrlPreference } from "./trl.ts";
 * TrlPreference.parse({
 *   prompt: [{ role: "user", content: "Help me write f." }],
 *   chosen: [{ role: "assistant", content: "What should f return?" }],
 *   rejected: [{ role: "assistant", content: "def f(): pass" }],
 * });
 * ```
 */
export const TrlPreference = z.strictObject({
  prompt: Messages.min(1).describe(
    "the shared context: an optional system message, then the dialogue so far, ending with a user message",
  ),
  chosen: Messages.min(1).describe("the preferred continuation, starting with an assistant message"),
  rejected: Messages.min(1).describe("the dispreferred continuation, starting with an assistant message"),
}).superRefine((row, ctx) => {
  // The chat template must continue a user message with an agent turn, or the trainer's split of
  // prompt and completion is wrong.
  // (Refinements also run on rows with issues already reported, such as an empty list: hence the guards.)
  const last = Array.isArray(row.prompt) ? row.prompt.length - 1 : -1;
  if (last >= 0 && row.prompt[last]?.role !== "user") {
    ctx.addIssue({
      code: "custom",
      path: ["prompt", last, "role"],
      message: "the prompt must end with a user message",
    });
  }
  for (const side of ["chosen", "rejected"] as const) {
    if (Array.isArray(row[side]) && row[side].length > 0 && row[side][0]?.role !== "assistant") {
      ctx.addIssue({
        code: "custom",
        path: [side, 0, "role"],
        message: `${side} must start with an assistant message`,
      });
    }
  }
}).describe("TRL conversational preference row (prompt / chosen / rejected message lists)");
/** One row of TRL's conversational preference dataset. */
export type TrlPreference = z.infer<typeof TrlPreference>;

/** Options of {@link trlCriticRows}. */
export interface TrlCriticOptions {
  /** System prompt for dialogues that recorded none (default: the kit's agent instructions). */
  system?: string;
  /** Lead the system message with the reference code (default true; false: no-info critic, MT-DPO). */
  withInfo?: boolean;
}

/**
 * Critic pairs as TRL rows; `chosen` is the higher-reward trajectory.
 *
 * @example
 * ```ts
 * import { criticPairs } from "../rl/pairs.ts";
 * import { trlCriticRows } from "./trl.ts";
 * const task = { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: { t: "f()" } };
 * const roll = (answer: string, reward: number) => ({
 *   task,
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: answer }],
 *   answer,
 *   reward,
 * });
 * const rows = trlCriticRows(criticPairs([roll("def f():\n    return 1\n", 1), roll("nope", 0)]));
 * ```
 */
export function trlCriticRows(
  pairs: readonly TrajectoryPair[],
  options: TrlCriticOptions = {},
): TrlPreference[] {
  const { withInfo = true } = options;
  return pairs.map((pair, i) => {
    const [head, ...chosen] = pair.chosen.dialogue_history;
    const [other, ...rejected] = pair.rejected.dialogue_history;
    if (head.content !== other.content) {
      throw new Error(
        `trlCriticRows: pair ${i} (${pair.taskId}) opens with two different problem descriptions`,
      );
    }
    const system = systemPromptOf(pair.chosen, options.system);
    const row = {
      prompt: chatMessages([head], withInfo ? `${referenceInfo(pair.chosen.task)}\n\n${system}` : system),
      chosen: chatMessages(chosen),
      rejected: chatMessages(rejected),
    };
    return validate(TrlPreference, row, "trlCriticRows", i + 1);
  });
}

/** Options of {@link trlActorRows}. */
export interface TrlActorOptions {
  /** System prompt for dialogues that recorded none (default: the kit's agent instructions). */
  system?: string;
}

/**
 * Turn-level actor pairs as TRL rows: the state's dialogue, then each candidate turn.
 *
 * @example
 * ```ts
 * import { trlActorRows } from "./trl.ts";
 * const trajectory = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: "q" }],
 *   answer: "",
 * };
 * const rows = trlActorRows([
 *   { trajectory, at: 1, state: 0, chosen: "What rate?", rejected: "ok", scores: [0.9, 0.1] },
 * ]);
 * ```
 */
export function trlActorRows(pairs: readonly ActorPair[], options: TrlActorOptions = {}): TrlPreference[] {
  return pairs.map((pair, i) => {
    const system = systemPromptOf(pair.trajectory, options.system);
    const row = {
      prompt: chatMessages(pair.trajectory.dialogue_history.slice(0, pair.at), system),
      chosen: [{ role: "assistant" as const, content: pair.chosen }],
      rejected: [{ role: "assistant" as const, content: pair.rejected }],
    };
    return validate(TrlPreference, row, "trlActorRows", i + 1);
  });
}
