import assert from "node:assert/strict";
import { FAMILIES } from "../../../lib/colbench/backend/families/mod.ts";
import { factsAskedFor } from "../../../lib/colbench/backend/simulator.ts";
import type { HiddenFact } from "../../../lib/colbench/backend/schema.ts";
import { USELESS_QUESTIONS } from "../../../lib/colbench/backend/questions.ts";
import { Rng } from "../../../lib/util/rng.ts";

const SAMPLES = 5;

for (const family of FAMILIES) {
  Deno.test(`family ${family.name}: facts, questions and simulator matching follow the rules`, () => {
    assert.ok(family.facts.length >= 2 && family.facts.length <= 6, "2-6 facts");
    assert.equal(new Set(family.facts.map((f) => f.id)).size, family.facts.length, "unique fact ids");
    for (let s = 0; s < SAMPLES; s++) {
      const rng = new Rng(`${family.name}:${s}`);
      const params = family.sampleParams(rng);
      const facts: HiddenFact[] = family.facts.map((f) => {
        const value = f.choices(params)[0];
        return { id: f.id, value, keywords: [...f.keywords], statements: f.statements(value, params) };
      });
      for (const spec of family.facts) {
        const choices = spec.choices(params);
        assert.ok(choices.length >= 2, `${spec.id}: at least two choices`);
        assert.equal(new Set(choices).size, choices.length, `${spec.id}: distinct choices`);
        if (spec.commonDefault !== undefined) {
          assert.ok(choices.includes(spec.commonDefault), `${spec.id}: default`);
        }
        for (const value of choices) {
          const statements = spec.statements(value, params);
          assert.ok(statements.length >= 2, `${spec.id}: two statements`);
          for (const st of statements) assert.ok(st.length <= 190, `${spec.id}: short statement "${st}"`);
        }
        const questions = spec.questions(params);
        assert.ok(questions.length >= 2, `${spec.id}: two questions`);
        for (const q of questions) {
          const asked = factsAskedFor(q, facts).map((f) => f.id);
          assert.equal(asked[0], spec.id, `question "${q}" should reveal ${spec.id} first, got [${asked}]`);
        }
      }
      for (const q of USELESS_QUESTIONS) {
        assert.deepEqual(factsAskedFor(q, facts), [], `useless question "${q}" matched a fact`);
      }
      const description = family.describe(params, rng);
      assert.match(description, /The signature of the function is: def \w+\(.*\)$/);
      const values = Object.fromEntries(family.facts.map((f) => [f.id, f.choices(params)[0]]));
      const code = family.render(params, values);
      assert.equal(code.match(/^def /gm)?.length, 1, "exactly one top-level def");
      assert.doesNotMatch(code, /^(import|from) /m, "no top-level import");
      const pool = family.testPool(params, rng);
      assert.ok(new Set(pool).size >= 16, "at least 16 distinct candidate tests");
    }
  });
}
