/**
 * The chat format of the kit's small models: `<bos>`, then each message as a role token, its content and
 * `<|end|>`. The tokens of each agent turn (content and its `<|end|>`, like the paper's mask from
 * after the assistant header through `<|eot_id|>`) are marked with the turn's index.
 *
 * @module
 */
import type { DialogueTurn } from "../colbench/schema.ts";
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
    ids.push(...body);
    agentTurn.push(...body.map(() => (agent ? turn : -1)));
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
