/**
 * The prompt strings of exported data. One rule: a prompt recorded in the Llama-3.1 template (every
 * agent turn of the released ColBench trajectories) is kept byte for byte, so exports of the authors'
 * data hold exactly the strings their pipeline trains on; any other dialogue (the kit's own, recorded in
 * its small models' format) is rendered through that template with a system prompt.
 *
 * @module
 */
import { AGENT_SYSTEM_PROMPT } from "../colbench/backend/protocol.ts";
import type { Trajectory } from "../colbench/backend/schema.ts";
import { isLlama3Prompt, llama3Chat, llama3SystemPrompt } from "../llm/llama3.ts";
import { chatMessages } from "../llm/messages.ts";

/**
 * The system prompt of a trajectory's agent: the one its first agent turn recorded in a Llama-3.1
 * prompt, else `fallback` (default: the kit's wording of the paper's instructions).
 *
 * @example
 * ```ts
 * import { systemPromptOf } from "./prompts.ts";
 * const t = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }],
 *   answer: "",
 * };
 * systemPromptOf(t, "Ask first."); // "Ask first." (nothing recorded)
 * ```
 */
export function systemPromptOf(trajectory: Trajectory, fallback: string = AGENT_SYSTEM_PROMPT): string {
  const first = trajectory.dialogue_history.find((turn) => turn.role === "assistant");
  return (first?.input === undefined ? undefined : llama3SystemPrompt(first.input)) ?? fallback;
}

/**
 * The Llama-3.1 prompt of the agent turn at `at` (an index into `dialogue_history`): the recorded
 * `input` when it is in that template, else the dialogue before the turn rendered with the trajectory's
 * system prompt ({@link systemPromptOf}) and the assistant header.
 *
 * @example
 * ```ts
 * import { turnPrompt } from "./prompts.ts";
 * const t = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: "q" }],
 *   answer: "",
 * };
 * turnPrompt(t, 1).endsWith("<|start_header_id|>assistant<|end_header_id|>\n\n"); // true
 * ```
 */
export function turnPrompt(trajectory: Trajectory, at: number, fallbackSystem?: string): string {
  const turn = trajectory.dialogue_history[at];
  if (turn?.role !== "assistant") {
    throw new RangeError(`turnPrompt: dialogue_history[${at}] is not an agent turn`);
  }
  if (turn.input !== undefined && isLlama3Prompt(turn.input)) return turn.input;
  const system = systemPromptOf(trajectory, fallbackSystem);
  return llama3Chat(chatMessages(trajectory.dialogue_history.slice(0, at), system), {
    generationPrompt: true,
  });
}
