/**
 * A tfjs transformer as a ColBench agent: each turn, the dialogue is formatted with the kit's chat
 * format and every active episode's next message is sampled in one batch with the KV cache. The policy
 * sees only the dialogue history, never the task's hidden facts or reference.
 *
 * @module
 */
import type { Agent, AgentAction, AgentObservation } from "../colbench/agent.ts";
import { ANSWER_MARKER } from "../colbench/backend/protocol.ts";
import { fittedPromptIds } from "../nn/chat.ts";
import { nativeMatMul } from "../nn/backend.ts";
import type { Transformer } from "../nn/model.ts";
import { generate, type GenerateResult } from "../nn/sample.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { hashString, Rng } from "../util/rng.ts";
import { episodeRng, episodeSeed } from "../util/seed.ts";
import { taskKey } from "../colbench/backend/schema.ts";

/** Sampling settings of a {@link PolicyAgent}. */
export interface PolicyOptions {
  /** Name recorded with trajectories. Default "policy". */
  name?: string;
  /** Seed of the sampler; with the episodes' task ids and the turn it fixes every sample. */
  seed: number;
  /** Default 1.0, as in the paper (data collection and evaluation). */
  temperature?: number;
  /** Default 1 (off). */
  topP?: number;
  /** Most tokens per message. Default 200. */
  maxTokens?: number;
  /**
   * Prompts decoded together, prefilled 64 at a time. Default 256 on the native engine; 64 on the stock
   * kernels, whose samples (and so the README's numbers) stay those they have always drawn.
   */
  sampleBatchSize?: number;
  /**
   * At the episode's last allowed turn, start the message with the answer marker: the single-turn
   * setting (the agent is told to answer at once). Off by default, as in the paper's protocol, where a
   * question asked at the turn limit becomes the answer.
   */
  answerOnLastTurn?: boolean;
  /**
   * How samples are seeded. `"batch"` (default): one generator derived from the seed, the name, the turn
   * and every task id of the batch, decoded together (fast; a sample depends on the batch it was in).
   * `"episode"`: each observation is decoded on its own with `Rng.derive(seed, turn, hashString(taskKey))`
   * (`episodeSeed` in lib/util/seed.ts), so a sample depends only on its own episode and equals what the
   * kit's OpenAI-compatible server returns for a request carrying that seed.
   */
  seeding?: "batch" | "episode";
}

/** The sampler settings of one decode of agent turns. */
export interface TurnSampling {
  temperature: number;
  topP: number;
  /** Most tokens per turn. */
  maxTokens: number;
  rng: Rng;
  /** Prompts decoded together (results do not depend on it, beyond rounding with the native BLAS). */
  sampleBatchSize?: number;
}

/**
 * Samples the next agent turn after each prompt, stopping at `<|end|>` (kept in the tokens): the one
 * decoding that the policy agent and the kit's OpenAI-compatible server share, so given the same prompt
 * and generator a served turn is the in-process turn.
 *
 * @example
 * ```ts
 * import { sampleTurns } from "./policy.ts";
 * import { promptIds } from "../nn/chat.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { Rng } from "../util/rng.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const prompt = promptIds(tokenizer, [{ role: "user", content: "Help me write f." }]);
 * const out = await sampleTurns(model, tokenizer, [prompt], { temperature: 1, topP: 1, maxTokens: 50, rng: new Rng(0) });
 * ```
 */
export function sampleTurns(
  model: Transformer,
  tok: Tokenizer,
  prompts: readonly number[][],
  sampling: TurnSampling,
): Promise<GenerateResult> {
  return generate(model, prompts as number[][], {
    ...sampling,
    stopTokens: [tok.special("<|end|>")],
    padToken: tok.special("<pad>"),
  });
}

/**
 * The policy agent.
 *
 * @example
 * ```ts
 * import { PolicyAgent } from "./policy.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const agent = new PolicyAgent(model, tokenizer, { seed: 0 });
 * ```
 */
export class PolicyAgent implements Agent {
  readonly name: string;

  constructor(readonly model: Transformer, readonly tokenizer: Tokenizer, readonly options: PolicyOptions) {
    this.name = options.name ?? "policy";
  }

  /** Samples one message per observation, all in one batch. */
  async act(observations: readonly AgentObservation[]): Promise<AgentAction[]> {
    const tok = this.tokenizer;
    const maxTokens = this.options.maxTokens ?? 200;
    const budget = this.model.config.contextLength - maxTokens;
    const forced = `${ANSWER_MARKER}\n`;
    const forcedIds = tok.encode(forced);
    const answers = observations.map((o) =>
      (this.options.answerOnLastTurn ?? false) && o.turn + 1 >= o.maxTurns
    );
    const prompts = observations.map((o, i) => {
      const prompt = fittedPromptIds(tok, o.history, budget - (answers[i] ? forcedIds.length : 0));
      return answers[i] ? [...prompt, ...forcedIds] : prompt;
    });
    const end = tok.special("<|end|>");
    const settings = {
      temperature: this.options.temperature ?? 1,
      topP: this.options.topP ?? 1,
      maxTokens,
      sampleBatchSize: this.options.sampleBatchSize ?? (nativeMatMul() ? 256 : 64),
    };
    let sampled: number[][];
    if (this.options.seeding === "episode") {
      // One decode per observation, as the kit's server decodes a single request (same prompt, same
      // generator, batch of one), so in-process and remote samples are equal by construction.
      sampled = [];
      for (const [i, o] of observations.entries()) {
        const out = await sampleTurns(this.model, tok, [prompts[i]], {
          ...settings,
          rng: episodeRng(episodeSeed(this.options.seed, o.turn, taskKey(o.hidden))),
        });
        sampled.push(out.tokens[0]);
      }
    } else {
      const ids = observations.map((o) => taskKey(o.hidden)).join("\n");
      const turn = observations[0]?.turn ?? 0;
      sampled = (await sampleTurns(this.model, tok, prompts, {
        ...settings,
        rng: Rng.derive(this.options.seed, this.name, turn, hashString(ids)),
      })).tokens;
    }
    return sampled.map((tokens, i) => {
      const prompt = answers[i] ? prompts[i].slice(0, -forcedIds.length) : prompts[i];
      return {
        output: (answers[i] ? forced : "") + tok.decode(tokens.filter((t) => t !== end)),
        input: tok.decode(prompt),
      };
    });
  }
}
