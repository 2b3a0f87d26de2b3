/**
 * The chat format of the kit's small models: `<bos>`, then each message as a role token, its content and
 * `<|end|>`. The tokens of each agent turn (content and its `<|end|>`, like the paper's mask from
 * after the assistant header through `<|eot_id|>`) are marked with the turn's index.
 *
 * @module
 */
import type { DialogueTurn } from "../colbench/backend/schema.ts";
import type { Tokenizer } from "./tokenizer.ts";

/** A tokenized dialogue with the agent turn of every token (-1 outside agent turns). */
export interface EncodedDialogue {
  ids: number[];
  agentTurn: number[];
}

/**
 * Encodes a dialogue; an optional plain-text `prefix` (the critic's training-time information) comes
 * before `<bos>`.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "./tokenizer.ts";
 * import { encodeDialogue } from "./chat.ts";
 * const tok = Tokenizer.train(["Help me", "What rate?"]);
 * const { ids, agentTurn } = encodeDialogue(tok, [
 *   { role: "user", content: "Help me" },
 *   { role: "assistant", content: "What rate?" },
 * ]);
 * ```
 */
export function encodeDialogue(
  tok: Tokenizer,
  history: readonly DialogueTurn[],
  prefix = "",
): EncodedDialogue {
  const ids = [...tok.encode(prefix), tok.special("<bos>")];
  const agentTurn = ids.map(() => -1);
  let turn = 0;
  for (const message of history) {
    const agent = message.role === "assistant";
    ids.push(tok.special(agent ? "<|assistant|>" : "<|user|>"));
    agentTurn.push(-1);
    const body = [...tok.encode(message.content), tok.special("<|end|>")];
    // A loop, not push(...body): spreading a long message's tokens overflows the call stack.
    for (const id of body) {
      ids.push(id);
      agentTurn.push(agent ? turn : -1);
    }
    if (agent) turn++;
  }
  return { ids, agentTurn };
}

/**
 * The prompt for the agent's next turn: the dialogue followed by `<|assistant|>`.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "./tokenizer.ts";
 * import { promptIds } from "./chat.ts";
 * const tok = Tokenizer.train(["Help me"]);
 * const prompt = promptIds(tok, [{ role: "user", content: "Help me" }]);
 * ```
 */
export function promptIds(tok: Tokenizer, history: readonly DialogueTurn[], prefix = ""): number[] {
  return [...encodeDialogue(tok, history, prefix).ids, tok.special("<|assistant|>")];
}

/**
 * The prompt for the agent's next turn, cut to at most `budget` tokens: the problem statement (first
 * message) and the most recent turns survive, the oldest turns after the first are dropped.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "./tokenizer.ts";
 * import { fittedPromptIds } from "./chat.ts";
 * const tok = Tokenizer.train(["Help me"]);
 * const prompt = fittedPromptIds(tok, [{ role: "user", content: "Help me" }], 300);
 * ```
 */
export function fittedPromptIds(tok: Tokenizer, history: readonly DialogueTurn[], budget: number): number[] {
  const ids = promptIds(tok, history);
  if (ids.length <= budget) return ids;
  const headLength = promptIds(tok, history.slice(0, 1)).length - 1;
  const head = ids.slice(0, Math.min(headLength, budget >> 1));
  return [...head, ...ids.slice(ids.length - (budget - head.length))];
}
