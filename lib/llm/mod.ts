/**
 * The LLM tier: ColBench agents and human simulators behind OpenAI-compatible endpoints, an
 * OpenAI-compatible server for the kit's tfjs checkpoints, per-episode seeding shared by both sides, and
 * resumable evaluation.
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
export * from "./agent.ts";
export * from "./config.ts";
export * from "./describe.ts";
export * from "./endpoint.ts";
export * from "./limiter.ts";
export * from "./messages.ts";
export * from "./prompt.ts";
export * from "./resumable.ts";
export * from "./retry.ts";
export * from "../util/seed.ts";
export * from "./server.ts";
export * from "./simulator.ts";
export * from "./simulators.ts";
export * from "./spec.ts";
export * from "./wire.ts";
