/**
 * Rejection fine-tuning data (the RFT baseline: supervised fine-tuning on the successful offline
 * trajectories) in the chat SFT format: one `messages` list per trajectory, a system message and then
 * the whole dialogue. TRL's `SFTTrainer` reads it as a conversational language-modelling dataset
 * (`assistant_only_loss` to train on agent turns only); OpenRLHF's `train_sft` with
 * `--input_key messages --apply_chat_template --multiturn` masks every assistant turn.
 *
 * @module
 */
import { z } from "zod";
import type { Trajectory } from "../colbench/backend/schema.ts";
import { validate } from "../util/jsonl.ts";
import { ChatMessage, chatMessages } from "../llm/messages.ts";
import { systemPromptOf } from "./prompts.ts";

/**
 * One row of a chat SFT dataset.
 *
 * @example
 * ```ts
 * import { ChatSftRow } from "./sft.ts";
 * ChatSftRow.parse({
 *   messages: [{ role: "user", content: "Help me." }, { role: "assistant", content: "What rate?" }],
 * });
 * ```
 */
export const ChatSftRow = z.strictObject({
  messages: z.array(ChatMessage).min(2).describe(
    "the dialogue as chat messages (optional system message first); the assistant messages are the targets",
  ),
}).refine((row) => !Array.isArray(row.messages) || row.messages.some((m) => m?.role === "assistant"), {
  message: "a dialogue with no assistant message has nothing to learn",
  path: ["messages"],
}).describe("chat SFT row (a messages list)");
/** One row of a chat SFT dataset. */
export type ChatSftRow = z.infer<typeof ChatSftRow>;

/**
 * The trajectories RFT trains on: those whose reward reaches `successReward` (default 1: every test
 * passed), as the pipeline's `rft` method selects them.
 *
 * @example
 * ```ts
 * import { rftTrajectories } from "./sft.ts";
 * const t = (reward: number) => ({
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }],
 *   answer: "",
 *   reward,
 * });
 * rftTrajectories([t(1), t(0.9)]).length; // 1
 * ```
 */
export function rftTrajectories(
  trajectories: readonly Trajectory[],
  { successReward = 1 }: { successReward?: number } = {},
): Trajectory[] {
  return trajectories.filter((t, i) => {
    if (t.reward === undefined) {
      throw new Error(`rftTrajectories: trajectory ${i} has no reward (score it first)`);
    }
    return t.reward >= successReward;
  });
}

/** Options of {@link sftRows}. */
export interface SftRowOptions {
  /** System prompt for dialogues that recorded none (default: the kit's agent instructions). */
  system?: string;
}

/**
 * Trajectories as chat SFT rows.
 *
 * @example
 * ```ts
 * import { rftTrajectories, sftRows } from "./sft.ts";
 * const t = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: "q" }],
 *   answer: "",
 *   reward: 1,
 * };
 * const rows = sftRows(rftTrajectories([t]));
 * ```
 */
export function sftRows(trajectories: readonly Trajectory[], options: SftRowOptions = {}): ChatSftRow[] {
  return trajectories.map((t, i) =>
    validate(
      ChatSftRow,
      { messages: chatMessages(t.dialogue_history, systemPromptOf(t, options.system)) },
      "sftRows",
      i + 1,
    )
  );
}
