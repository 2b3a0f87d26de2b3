/**
 * What a result records about the agent and the simulator that produced it: kind, model, endpoint,
 * settings, prompt file and its SHA-256, seeds, and request counters (never an API key).
 *
 * @module
 */
import type { Agent } from "../colbench/agent.ts";
import { PolicyAgent } from "../agents/policy.ts";
import { type HumanSimulator, ScriptedSimulator } from "../colbench/backend/simulator.ts";

/** Something that can describe itself for the record (the OpenAI agent and simulator). */
interface SelfDescribing {
  describe(): Record<string, unknown>;
}

function selfDescribing(x: unknown): x is SelfDescribing {
  return typeof (x as Partial<SelfDescribing>).describe === "function";
}

/**
 * The record of an agent or a simulator.
 *
 * @example
 * ```ts
 * import { describeParticipant } from "./describe.ts";
 * import { ScriptedSimulator } from "../colbench/backend/simulator.ts";
 * describeParticipant(new ScriptedSimulator(0)); // { kind: "scripted", name: "scripted", seed: 0 }
 * ```
 */
export function describeParticipant(x: Agent | HumanSimulator): Record<string, unknown> {
  if (selfDescribing(x)) return x.describe();
  if (x instanceof PolicyAgent) {
    const o = x.options;
    return {
      kind: "policy",
      name: x.name,
      seed: o.seed,
      temperature: o.temperature ?? 1,
      topP: o.topP ?? 1,
      maxTokens: o.maxTokens ?? 200,
      seeding: o.seeding ?? "batch",
      answerOnLastTurn: o.answerOnLastTurn ?? false,
    };
  }
  if (x instanceof ScriptedSimulator) return { kind: "scripted", name: x.name, seed: x.seed };
  const seed = (x as { seed?: unknown }).seed;
  return { kind: "scripted", name: x.name, ...(typeof seed === "number" ? { seed } : {}) };
}

/** Fields that change how a run goes but not what it produces (or that legitimately change on resume). */
const OPERATIONAL = new Set([
  "stats",
  "baseUrl",
  "apiKeyEnv",
  "concurrency",
  "retries",
  "backoffMs",
  "maxBackoffMs",
  "timeoutMs",
]);

/**
 * The part of a record that identifies a configuration: without counters and operational settings
 * (endpoint URL, concurrency, retries, timeouts), and with the prompt reduced to its SHA-256, so a
 * resumed run can check it continues the same one even against a restarted server.
 *
 * @example
 * ```ts
 * import { identityOf } from "./describe.ts";
 * identityOf({ kind: "openai", model: "m", stats: { requests: 3 }, prompt: { path: "a.md", sha256: "ab" } });
 * // { kind: "openai", model: "m", prompt: "ab" }
 * ```
 */
export function identityOf(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (OPERATIONAL.has(key) || key === "promptFile") continue;
    out[key] = key === "prompt" && value !== null && typeof value === "object"
      ? (value as { sha256?: unknown }).sha256
      : value;
  }
  return out;
}
