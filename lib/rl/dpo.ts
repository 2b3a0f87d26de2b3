/**
 * DPO for policies, turn-level (SWEET-RL's actor: one state, a chosen and a rejected next turn) and
 * multi-turn (the baseline: two whole trajectories of a task). Log-probabilities are summed over the
 * response tokens (the turn, or every agent turn of a trajectory), the reference is the frozen base
 * policy, and an NLL term on the chosen side keeps the policy near its data (paper: 0.01).
 *
 * @module
 */
import type { DialogueTurn } from "../colbench/backend/schema.ts";
import { fittedPromptIds } from "../nn/chat.ts";
import type { Transformer } from "../nn/model.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import type { LoopResult, LoopRun } from "./loop.ts";
import { PreferenceConfig, trainPreferences } from "./objectives.ts";
import type { Pair } from "./scorer.ts";
import { tokenScorer, type TokenSequence } from "./token_scorer.ts";
import { sftExamples } from "./sft.ts";
import type { TrajectoryPair } from "./pairs.ts";

/** DPO hyper-parameters: the kit's preference objective's. */
export const DpoConfig = PreferenceConfig;
/** DPO hyper-parameters. */
export type DpoConfig = PreferenceConfig;

/** One side of a preference: tokens and the response mask. */
export type PolicySequence = TokenSequence;

/** A chosen and a rejected sequence sharing their context. */
export type Preference = Pair<PolicySequence>;

/**
 * A turn-level preference: the state's prompt (as the policy sees it) followed by each candidate turn.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "../nn/tokenizer.ts";
 * import { turnPreference } from "./dpo.ts";
 * const tok = Tokenizer.train(["Help me", "What rate?", "No."]);
 * const pref = turnPreference(tok, [{ role: "user", content: "Help me" }], "What rate?", "No.", 64);
 * ```
 */
export function turnPreference(
  tok: Tokenizer,
  history: readonly DialogueTurn[],
  chosen: string,
  rejected: string,
  contextLength: number,
): Preference {
  const end = tok.special("<|end|>");
  const responses = [chosen, rejected].map((text) => [...tok.encode(text), end]);
  const longest = Math.max(...responses.map((r) => r.length));
  const prompt = fittedPromptIds(tok, history, Math.max(1, contextLength - longest));
  const [c, r] = responses.map((response) => {
    const ids = [...prompt, ...response].slice(0, contextLength);
    return { ids, mask: ids.map((_, i) => (i >= prompt.length ? 1 : 0)) };
  });
  return { chosen: c, rejected: r };
}

/**
 * A multi-turn preference: both trajectories as the policy reads them (no training-time information),
 * every agent turn a response.
 *
 * @example
 * ```ts
 * import { Trajectory } from "../colbench/backend/schema.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { readJsonl } from "../util/jsonl.ts";
 * import { criticPairs } from "./pairs.ts";
 * import { trajectoryPreference } from "./dpo.ts";
 * const { tokenizer } = await loadPretrained("data/policy/base");
 * const rollouts = await readJsonl(Trajectory, "runs/eval/mediocre-train-s0.jsonl");
 * const prefs = criticPairs(rollouts).map((p) => trajectoryPreference(tokenizer, p, 512));
 * ```
 */
export function trajectoryPreference(
  tok: Tokenizer,
  pair: TrajectoryPair,
  contextLength: number,
): Preference {
  // The same tokens and agent-turn mask as supervised fine-tuning on these dialogues.
  const [chosen, rejected] = sftExamples(
    tok,
    [pair.chosen.dialogue_history, pair.rejected.dialogue_history],
    contextLength,
  );
  return { chosen, rejected };
}

/** The context of a preference: its chosen sequence up to the first response token. */
function contextKey(p: Preference): string {
  const first = p.chosen.mask.indexOf(1);
  return p.chosen.ids.slice(0, first < 0 ? p.chosen.ids.length : first).join(",");
}

/**
 * Trains `policy` in place with DPO against the frozen `reference`: the kit's preference objective
 * (lib/rl/objectives.ts) over the transformer's token scorer. Preferences that share their context (a
 * state's pairs; a task's pairs with one chosen trajectory) are kept together in the step plan and packed
 * into one row: the context runs once and each distinct response once.
 *
 * @example
 * ```ts
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { DpoConfig, trainDpo, turnPreference } from "./dpo.ts";
 * const { model: base, tokenizer } = await loadPretrained("data/policy/base");
 * const history = [{ role: "user" as const, content: "Help me write f." }];
 * const preferences = [turnPreference(tokenizer, history, "What rate applies?", "def f(): pass", 512)];
 * const policy = base.clone();
 * await trainDpo(policy, base, tokenizer, preferences, DpoConfig.parse({ lr: 1e-4 }));
 * ```
 */
export function trainDpo(
  policy: Transformer,
  reference: Transformer,
  tok: Tokenizer,
  preferences: readonly Preference[],
  config: DpoConfig,
  run: LoopRun & { tag?: string } = {},
): Promise<LoopResult> {
  const scorer = {
    ...tokenScorer({ pad: tok.special("<pad>"), group: contextKey, reference: "sums" }),
    // The shared context runs once.
    pairTokens: (e: Preference) => e.chosen.ids.length + e.rejected.ids.length - e.chosen.mask.indexOf(1),
  };
  return trainPreferences(policy, reference, preferences, config, scorer, { ...run, tag: run.tag ?? "dpo" });
}
