import assert from "node:assert/strict";
import { pieces, SPECIAL_TOKENS, Tokenizer } from "../../lib/nn/tokenizer.ts";
import { encodeDialogue, promptIds } from "../../lib/nn/chat.ts";
import { fixtureTasks } from "../fixtures.ts";

const corpus = fixtureTasks(0).flatMap((
  t,
) => [t.problem_description, t.ground_truth, ...t.hidden_facts![0].statements]);
const tok = Tokenizer.train(corpus);

Deno.test("tokenizer: pieces cover the text; numbers, indents and newlines are pieces", () => {
  const text = "def f(x):\n    return round(x * 15 / 100, 2)\t!";
  assert.equal(pieces(text).join(""), text);
  assert.deepEqual(pieces(" 150.25"), [" 150", ".", "25"]);
  assert.deepEqual(pieces("\n        y"), ["\n", "    ", "    ", "y"]);
});

Deno.test("tokenizer: round trip on the suite's text, code and unseen words", () => {
  for (const text of [...corpus, "Zyzzyva quux_99 ~`^ {}[]", ""]) {
    assert.equal(tok.decode(tok.encode(text)), text);
  }
  const unseen = tok.encode(" Zyzzyva");
  assert.ok(unseen.length > 1, "unknown words fall back to characters");
  assert.ok(!unseen.includes(tok.special("<unk>")));
});

Deno.test("tokenizer: a number seen in training is one token; an unseen one falls back to digits", () => {
  const numbers = Tokenizer.train(["Members save 15 percent.", "Members save 15 percent."]);
  assert.equal(numbers.encode(" 15").length, 1);
  const unseen = numbers.encode(" 12500");
  assert.deepEqual(unseen.map((id) => numbers.vocab[id]), [" 1", "2", "5", "0", "0"]);
  assert.equal(numbers.decode(unseen), " 12500");
  const digits = Tokenizer.train(["Members save 15 percent."], { minCount: 1, numbers: "digits" });
  assert.deepEqual(digits.encode(" 15").map((id) => digits.vocab[id]), [" 1", "5"]);
  const restored = Tokenizer.fromJSON(JSON.parse(JSON.stringify(digits.toJSON())));
  assert.equal(restored.numbers, "digits");
  assert.deepEqual(restored.encode(" 150 percent"), digits.encode(" 150 percent"));
});

Deno.test("tokenizer: special tokens come first, are parsed from text, and survive JSON", () => {
  SPECIAL_TOKENS.forEach((t, i) => assert.equal(tok.special(t), i));
  const ids = tok.encode("<|user|>Hi<|end|>");
  assert.equal(ids[0], tok.special("<|user|>"));
  assert.equal(ids.at(-1), tok.special("<|end|>"));
  const restored = Tokenizer.fromJSON(JSON.parse(JSON.stringify(tok.toJSON())));
  assert.deepEqual(restored.encode(corpus[0]), tok.encode(corpus[0]));
  assert.throws(() => Tokenizer.fromJSON({ kind: "bpe", vocab: [] }));
});

Deno.test("chat: agent turns are marked from content through <|end|>; prefix precedes <bos>", () => {
  const history = [
    { role: "user" as const, content: "Help me" },
    { role: "assistant" as const, content: "What rate?" },
    { role: "user" as const, content: "15 percent." },
    { role: "assistant" as const, content: "I WANT TO ANSWER: x" },
  ];
  const { ids, agentTurn } = encodeDialogue(tok, history, "In light that the final answer is: c.");
  assert.equal(ids.length, agentTurn.length);
  const bos = ids.indexOf(tok.special("<bos>"));
  assert.ok(bos > 0);
  for (const turn of [0, 1]) {
    const marked = ids.filter((_, i) => agentTurn[i] === turn);
    assert.equal(marked.at(-1), tok.special("<|end|>"));
    assert.equal(tok.decode(marked.slice(0, -1)), history[2 * turn + 1].content);
    const first = agentTurn.indexOf(turn);
    assert.equal(ids[first - 1], tok.special("<|assistant|>"));
  }
  const prompt = promptIds(tok, history.slice(0, 3));
  assert.equal(prompt.at(-1), tok.special("<|assistant|>"));
  assert.deepEqual(prompt.slice(0, -1), encodeDialogue(tok, history.slice(0, 3)).ids);
});
