/**
 * The LLM tier: ColBench agents and human simulators (text and vision) behind OpenAI-compatible
 * endpoints with retries and rate limits, agents and simulators built from command-line specs, an
 * OpenAI-compatible server for the kit's tfjs checkpoints (seeded per episode as the in-process policy
 * is, lib/util/seed.ts), and resumable evaluation.
 *
 * @example
 * ```ts
 * import { OpenAIAgent, startServer } from "./mod.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
 * const agent = await OpenAIAgent.create({ model: "base", baseUrl: server.baseUrl, seed: 0 });
 * await server.close();
 * ```
 *
 * @module
 */
export { OpenAIAgent } from "./agent.ts";
export { agentByName, createAgent, SCRIPTED_AGENTS, type ScriptedAgentName } from "./agents.ts";
export {
  DEFAULT_AGENT_PROMPT,
  DEFAULT_SIMULATOR_PROMPT,
  EndpointConfig,
  OpenAIAgentConfig,
  OpenAISimulatorConfig,
} from "./config.ts";
export { describeParticipant, identityOf } from "./describe.ts";
export {
  ChatEndpoint,
  type ChatRequest,
  type ChatResult,
  type EndpointHooks,
  type EndpointStats,
  NO_RESPONSE,
} from "./endpoint.ts";
export { ChatMessage, chatMessages, type ContentPart, type VisionMessage } from "./messages.ts";
export { fillTemplate, loadPrompt, type PromptFile } from "./prompt.ts";
export {
  type ChunkReport,
  evaluateResumable,
  partialPathFor,
  type ResumableOptions,
  type ResumableResult,
  runIdOf,
} from "./resumable.ts";
export { type FailureKind, RetriesExhaustedError } from "./retry.ts";
export { type KitServer, scorePrompts, type ServeOptions, startServer } from "./server.ts";
export { MalformedReplyError, type RemoteScores, ScoringEndpoint, type ScoringStats } from "./scoring.ts";
export { LLAMA3, llama3Chat, type Llama3Options } from "./llama3.ts";
export { referenceInfo } from "./reference_info.ts";
export { OpenAISimulator, SIMULATOR_PLACEHOLDERS } from "./simulator.ts";
export { createSimulator } from "./simulators.ts";
export { isOpenAISpec, type OpenAISpec, parseOpenAISpec } from "./spec.ts";
export {
  DEFAULT_DESIGN_SIMULATOR_PROMPT,
  type DesignComparison,
  OpenAIDesignSimulator,
  OpenAIDesignSimulatorConfig,
} from "./vlm_simulator.ts";
