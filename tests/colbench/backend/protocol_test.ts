import assert from "node:assert/strict";
import { ANSWER_MARKER, answerOf, processResponse } from "../../../lib/colbench/backend/protocol.ts";

Deno.test("protocol: OUTPUT: rule keeps the text after the first marker and cuts before a second", () => {
  assert.deepEqual(processResponse("plain"), { content: "plain", output: "plain" });
  const r = processResponse("thought OUTPUT: shown OUTPUT: extra");
  assert.equal(r.content, " shown ");
  assert.equal(r.output, "thought OUTPUT: shown ");
});

Deno.test("protocol: the answer marker ends the episode; the turn limit makes the whole response the answer", () => {
  assert.equal(answerOf(`Sure. ${ANSWER_MARKER} def f(): pass`, 0, 10), " def f(): pass");
  assert.equal(answerOf("What is the rate?", 8, 10), undefined);
  assert.equal(answerOf("What is the rate?", 9, 10), "What is the rate?");
  assert.equal(answerOf("def f(): pass", 0, 1), "def f(): pass");
});
