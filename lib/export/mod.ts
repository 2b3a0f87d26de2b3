/**
 * Training data for other stacks: a pipeline run (or a trajectories file) turned into critic pairs,
 * turn-level actor pairs and rejection fine-tuning rows in TRL's conversational preference format,
 * OpenRLHF's templated strings (Llama 3 chat template) or chat SFT messages, each row validated against
 * its schema; and the readers of a run folder those exports start from.
 *
 * @example
 * ```ts
 * import { exportRows } from "./mod.ts";
 * import { writeJsonlStream } from "../util/jsonl_stream.ts";
 * const { schema, rows } = await exportRows({ format: "trl", what: "actor", source: { run: "runs/ablate/smoke" } });
 * await writeJsonlStream("runs/export/actor.trl.jsonl", schema, rows);
 * ```
 *
 * @module
 */
export {
  ExportFormat,
  type ExportRequest,
  ExportRequestError,
  type ExportRows,
  exportRows,
  type ExportSource,
  ExportWhat,
} from "./dataset.ts";
export { type ActorPair, type ActorPairOptions, actorPairs } from "./actor_pairs.ts";
export {
  type TrlActorOptions,
  trlActorRows,
  type TrlCriticOptions,
  trlCriticRows,
  TrlPreference,
} from "./trl.ts";
export {
  type OpenRlhfActorOptions,
  openrlhfActorRows,
  type OpenRlhfCriticOptions,
  openrlhfCriticRows,
  OpenRlhfPreference,
} from "./openrlhf.ts";
export { ChatSftRow, rftTrajectories, type SftRowOptions, sftRows } from "./sft.ts";
export { isLlama3Prompt, LLAMA3, llama3Chat, type Llama3Options, llama3SystemPrompt } from "../llm/llama3.ts";
export { systemPromptOf, turnPrompt } from "./prompts.ts";
export { referenceInfo } from "../llm/reference_info.ts";
export { readRunActorPairs, type RunActorOptions } from "./run.ts";
