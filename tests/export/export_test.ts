import assert from "node:assert/strict";
import { importReleased } from "../../lib/colbench/backend/convert.ts";
import { AGENT_SYSTEM_PROMPT } from "../../lib/colbench/backend/protocol.ts";
import { Trajectory } from "../../lib/colbench/backend/schema.ts";
import { actorPairs } from "../../lib/export/actor_pairs.ts";
import { ExportRequestError, exportRows } from "../../lib/export/dataset.ts";
import { isLlama3Prompt, LLAMA3, llama3Chat, llama3SystemPrompt } from "../../lib/llm/llama3.ts";
import { chatMessages } from "../../lib/llm/messages.ts";
import { openrlhfCriticRows, OpenRlhfPreference } from "../../lib/export/openrlhf.ts";
import { systemPromptOf, turnPrompt } from "../../lib/export/prompts.ts";
import { referenceInfo } from "../../lib/llm/reference_info.ts";
import { readRunActorPairs } from "../../lib/export/run.ts";
import { RunFolder } from "../../lib/pipeline/run_folder.ts";
import { ChatSftRow } from "../../lib/export/sft.ts";
import { trlCriticRows, TrlPreference } from "../../lib/export/trl.ts";
import { ABLATE_PRESETS, AblateConfig } from "../../lib/pipeline/config.ts";
import { CandidateRow, RankRow } from "../../lib/pipeline/stages.ts";
import { criticPairs, topBottomPairs } from "../../lib/rl/pairs.ts";
import { DataError, readJsonl, writeJson, writeJsonl } from "../../lib/util/jsonl.ts";
import { writeJsonlStream } from "../../lib/util/jsonl_stream.ts";
import { Rng } from "../../lib/util/rng.ts";

const FIXTURE = "data/fixtures/released_trajectories.jsonl";
/** The fixture's system prompt (ours), recorded in every agent turn's Llama-3.1 prompt. */
const FIXTURE_SYSTEM = /^You pair-program with a person on one Python function\./;

/** The fixture trajectories as the kit's own rollouts hold them: prompts in the small models' format. */
async function kitRollouts(): Promise<Trajectory[]> {
  const imported = await Array.fromAsync(importReleased(FIXTURE));
  return imported.map((t, i) => ({
    ...t,
    dialogue_history: t.dialogue_history.map((turn, k) =>
      turn.role === "assistant" ? { ...turn, input: `<bos><|user|>turn ${k}<|end|><|assistant|>` } : turn
    ),
    meta: { agent: "policy", simulator: "scripted", rollout: Math.floor(i / 2) },
  }));
}

/** A tiny run folder shaped like `deno task ablate`'s: config, 2 rollout files, candidates, ranks. */
async function makeRun(): Promise<
  { root: string; rollouts: Trajectory[]; candidates: CandidateRow[]; ranks: RankRow[] }
> {
  const root = await Deno.makeTempDir();
  const config = AblateConfig.parse({ ...ABLATE_PRESETS.smoke, rollouts: 2, pairsPerState: 3 });
  await writeJson(`${root}/config.json`, AblateConfig, config);
  const rollouts = await kitRollouts();
  await writeJsonl(`${root}/offline/rollouts/r0.jsonl`, Trajectory, rollouts.slice(0, 2));
  await writeJsonl(`${root}/offline/rollouts/r1.jsonl`, Trajectory, rollouts.slice(2));
  const candidates: CandidateRow[] = [
    { state: 0, trajectory: 0, turn: 0, candidates: ["Which rates?", "ok", "What service levels?", "bye"] },
    { state: 1, trajectory: 0, turn: 1, candidates: ["Default rate?", "hm", "Any other word?", "no"] },
    { state: 2, trajectory: 1, turn: 0, candidates: ["How much per plant?", "x", "Dry days?", "y"] },
  ];
  const ranks: RankRow[] = candidates.map((c) => ({ state: c.state, scores: [0.9, -0.4, 0.6, 0.1] }));
  await writeJsonl(`${root}/offline/candidates/0000.jsonl`, CandidateRow, candidates);
  await writeJsonl(`${root}/seed-0/ranks/sweet.jsonl`, RankRow, ranks);
  return { root, rollouts, candidates, ranks };
}

Deno.test("llama3: the template's text for a small chat, and its system prompt read back", () => {
  const messages = chatMessages([{ role: "user", content: " Help me. " }, {
    role: "assistant",
    content: "Rate?",
  }], "Be brief.");
  const text = llama3Chat(messages, { generationPrompt: true });
  assert.equal(
    text,
    "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n" +
      "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.<|eot_id|>" +
      "<|start_header_id|>user<|end_header_id|>\n\nHelp me.<|eot_id|>" +
      "<|start_header_id|>assistant<|end_header_id|>\n\nRate?<|eot_id|>" +
      "<|start_header_id|>assistant<|end_header_id|>\n\n",
  );
  assert.equal(llama3SystemPrompt(text), "Be brief.");
  assert.equal(llama3SystemPrompt("<bos><|user|>x<|end|>"), undefined);
  assert.ok(!isLlama3Prompt("<bos><|user|>x"));
});

Deno.test("prompts: recorded Llama-3.1 prompts are kept verbatim, the kit's own are rendered", async () => {
  const [released] = await Array.fromAsync(importReleased(FIXTURE));
  assert.match(systemPromptOf(released), FIXTURE_SYSTEM);
  assert.equal(turnPrompt(released, 3), released.dialogue_history[3].input);
  // Rendering the recorded turn's dialogue again with its system prompt gives the same string.
  assert.equal(
    llama3Chat(chatMessages(released.dialogue_history.slice(0, 3), systemPromptOf(released)), {
      generationPrompt: true,
    }),
    released.dialogue_history[3].input,
  );
  const [kit] = await kitRollouts();
  assert.equal(systemPromptOf(kit), AGENT_SYSTEM_PROMPT);
  assert.equal(
    turnPrompt(kit, 3),
    llama3Chat(chatMessages(kit.dialogue_history.slice(0, 3), AGENT_SYSTEM_PROMPT), {
      generationPrompt: true,
    }),
  );
  assert.equal(systemPromptOf(kit, "Custom."), "Custom.");
  assert.throws(() => turnPrompt(kit, 0), /not an agent turn/);
});

Deno.test("export critic: OpenRLHF rows are the reference's strings, info first, chosen won", async () => {
  const trajectories = await Array.fromAsync(importReleased(FIXTURE));
  const pairs = criticPairs(trajectories);
  const { schema, rows } = await exportRows({ format: "openrlhf", what: "critic", source: { trajectories } });
  assert.equal(schema, OpenRlhfPreference);
  assert.equal(rows.length, 2);
  rows.forEach((raw, i) => {
    const row = OpenRlhfPreference.parse(raw);
    assert.equal(row.prompt, undefined);
    for (const side of ["chosen", "rejected"] as const) {
      const t = pairs[i][side];
      const last = t.dialogue_history[t.dialogue_history.length - 1];
      // In light that the final answer is: {gt}. + last_turn.input + last_turn.output
      assert.equal(row[side], referenceInfo(t.task) + last.input + last.output);
      assert.ok(
        row[side].startsWith(`In light that the final answer is: ${t.task.ground_truth}.${LLAMA3.bos}`),
      );
    }
    assert.ok(row.chosen.endsWith(pairs[i].chosen.dialogue_history.at(-1)!.output!));
    assert.ok(pairs[i].chosen.reward! > pairs[i].rejected.reward!);
  });
  assert.deepEqual(openrlhfCriticRows(pairs), rows, "the reference comes first unless asked otherwise");
  const plain = openrlhfCriticRows(pairs, { withInfo: false });
  for (const row of plain) {
    assert.ok(row.chosen.startsWith(LLAMA3.bos) && row.rejected.startsWith(LLAMA3.bos));
    assert.ok(!row.chosen.includes("In light that the final answer is"));
  }
});

Deno.test("export critic: TRL rows, reference in the system message, dialogues as completions", async () => {
  const trajectories = await kitRollouts();
  const pairs = criticPairs(trajectories);
  const { schema, rows } = await exportRows({ format: "trl", what: "critic", source: { trajectories } });
  assert.equal(schema, TrlPreference);
  assert.equal(rows.length, 2);
  rows.forEach((raw, i) => {
    const row = TrlPreference.parse(raw);
    const { chosen, rejected } = pairs[i];
    assert.deepEqual(row.prompt.map((m) => m.role), ["system", "user"]);
    assert.ok(row.prompt[0].content.startsWith(referenceInfo(chosen.task)));
    assert.ok(row.prompt[0].content.endsWith(AGENT_SYSTEM_PROMPT));
    assert.equal(row.prompt[1].content, chosen.task.problem_description);
    assert.deepEqual(row.chosen, chatMessages(chosen.dialogue_history.slice(1)));
    assert.deepEqual(row.rejected, chatMessages(rejected.dialogue_history.slice(1)));
    assert.ok(chosen.reward! > rejected.reward!);
  });
  assert.deepEqual(trlCriticRows(pairs), rows, "the reference comes first unless asked otherwise");
  for (const row of trlCriticRows(pairs, { withInfo: false })) {
    assert.equal(row.prompt[0].content, AGENT_SYSTEM_PROMPT);
  }
});

Deno.test("export actor: the pipeline's pairs of the run, no reference, chosen scored higher", async () => {
  const { root, rollouts, candidates, ranks } = await makeRun();
  const pairs = await readRunActorPairs(root, { seed: 0, variant: "sweet" });
  // The pipeline's rule, state by state: topBottomPairs on Rng.derive(seed, "pairs", variant, state).
  const expected = candidates.flatMap((row, i) =>
    topBottomPairs(ranks[i].scores, 3, Rng.derive(0, "pairs", "sweet", row.state)).map(([c, r]) => [
      row.state,
      row.candidates[c],
      row.candidates[r],
    ])
  );
  assert.ok(expected.length >= 3);
  assert.deepEqual(pairs.map((p) => [p.state, p.chosen, p.rejected]), expected);
  assert.deepEqual(
    pairs,
    actorPairs(rollouts, candidates, ranks, { seed: 0, variant: "sweet", pairsPerState: 3 }),
  );
  for (const p of pairs) {
    assert.ok(p.scores[0] > p.scores[1]);
    // Top half (0.9, 0.6) over bottom half (0.1, -0.4).
    assert.ok([0, 2].includes(candidates[p.state].candidates.indexOf(p.chosen)));
  }

  const trl = await exportRows({ format: "trl", what: "actor", source: { run: root } });
  const open = await exportRows({ format: "openrlhf", what: "actor", source: { run: root } });
  const split = await exportRows({
    format: "openrlhf",
    what: "actor",
    source: { run: root },
    splitPrompt: true,
  });
  assert.equal(trl.rows.length, pairs.length);
  pairs.forEach((p, i) => {
    const t = TrlPreference.parse(trl.rows[i]);
    assert.deepEqual(
      t.prompt,
      chatMessages(p.trajectory.dialogue_history.slice(0, p.at), AGENT_SYSTEM_PROMPT),
    );
    assert.deepEqual(t.chosen, [{ role: "assistant", content: p.chosen }]);
    assert.deepEqual(t.rejected, [{ role: "assistant", content: p.rejected }]);
    const o = OpenRlhfPreference.parse(open.rows[i]);
    const prompt = llama3Chat(
      chatMessages(p.trajectory.dialogue_history.slice(0, p.at), AGENT_SYSTEM_PROMPT),
      {
        generationPrompt: true,
      },
    );
    assert.equal(o.chosen, prompt + p.chosen + LLAMA3.eot);
    assert.equal(o.rejected, prompt + p.rejected + LLAMA3.eot);
    assert.deepEqual(OpenRlhfPreference.parse(split.rows[i]), {
      prompt,
      chosen: p.chosen + LLAMA3.eot,
      rejected: p.rejected + LLAMA3.eot,
    });
    // The actor never sees the training-time information.
    const text = JSON.stringify([t, o]);
    assert.ok(!text.includes("In light that the final answer is"));
    assert.ok(!text.includes(JSON.stringify(p.trajectory.task.ground_truth).slice(1, -1)));
  });
  await Deno.remove(root, { recursive: true });
});

Deno.test("export rft: the successful rollouts as chat SFT rows", async () => {
  const { root, rollouts } = await makeRun();
  const { schema, rows } = await exportRows({ format: "sft", what: "rft", source: { run: root } });
  assert.equal(schema, ChatSftRow);
  const wins = rollouts.filter((t) => t.reward === 1);
  assert.equal(wins.length, 2);
  assert.deepEqual(
    rows,
    wins.map((t) => ({ messages: chatMessages(t.dialogue_history, AGENT_SYSTEM_PROMPT) })),
  );
  for (const row of rows) ChatSftRow.parse(row);
  await Deno.remove(root, { recursive: true });
});

Deno.test("export: schemas reject malformed rows; bad requests and missing artifacts are named", async () => {
  const msg = (role: "system" | "user" | "assistant", content = "x") => ({ role, content });
  const good = { prompt: [msg("user")], chosen: [msg("assistant")], rejected: [msg("assistant")] };
  TrlPreference.parse(good);
  const issue = (value: unknown) => TrlPreference.safeParse(value).error?.issues[0].path.join(".");
  assert.equal(issue({ ...good, chosen: [msg("user")] }), "chosen.0.role");
  assert.equal(issue({ ...good, prompt: [msg("user"), msg("assistant")] }), "prompt.1.role");
  assert.equal(issue({ ...good, rejected: [{ role: "assistant", text: "x" }] }), "rejected.0.content");
  assert.ok(!OpenRlhfPreference.safeParse({ chosen: "a", rejected: "b", margin: 1 }).success);
  assert.ok(!OpenRlhfPreference.safeParse({ chosen: "", rejected: "b" }).success);
  assert.ok(!ChatSftRow.safeParse({ messages: [msg("system"), msg("user")] }).success);

  const trajectories = await kitRollouts();
  await assert.rejects(
    () => exportRows({ format: "sft", what: "critic", source: { trajectories } }),
    (e: unknown) => e instanceof ExportRequestError && /trl or openrlhf/.test(e.message),
  );
  await assert.rejects(
    () => exportRows({ format: "trl", what: "actor", source: { trajectories } }),
    (e: unknown) => e instanceof ExportRequestError && /--run/.test(e.message),
  );
  const { root } = await makeRun();
  await assert.rejects(() => new RunFolder(root).ranks(1, "sweet"), (e: unknown) => {
    assert.ok(e instanceof DataError);
    assert.equal(e.file, `${root}/seed-1/ranks/sweet.jsonl`);
    assert.match(e.message, /ranks\/sweet stage/);
    return true;
  });

  // A bad row stops the streaming writer before anything appears at the output path.
  const out = `${root}/export/rows.jsonl`;
  await assert.rejects(
    () => writeJsonlStream(out, TrlPreference, [good, { ...good, chosen: [] }]),
    (e: unknown) => e instanceof DataError && e.file === out && e.line === 2 && e.field === "chosen",
  );
  assert.deepEqual([...Deno.readDirSync(`${root}/export`)], []);
  assert.equal(await writeJsonlStream(out, TrlPreference, [good, good]), 2);
  assert.deepEqual(await readJsonl(TrlPreference, out), [good, good]);
  await Deno.remove(root, { recursive: true });
});

Deno.test("export CLI: exports a run folder, imports and re-exports the released fixture", async () => {
  const { root } = await makeRun();
  const run = async (...args: string[]) => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tasks/export.ts", ...args],
    }).output();
    return { code, out: new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr) };
  };
  const actor = await run("--run", root, "--format", "trl", "--what", "actor");
  assert.equal(actor.code, 0, actor.out);
  const rows = await readJsonl(TrlPreference, `${root}/export/actor.trl.jsonl`);
  assert.equal(rows.length, (await readRunActorPairs(root)).length);

  const kit = `${root}/kit.jsonl`, back = `${root}/back.jsonl`;
  assert.equal((await run("--import", FIXTURE, "--out", kit)).code, 0);
  assert.equal((await run("--to-released", kit, "--out", back)).code, 0);
  assert.equal(await Deno.readTextFile(back), await Deno.readTextFile(FIXTURE));

  // --score fills in the rewards of rows that have none, as the harness scores them.
  const unscored = `${root}/unscored.jsonl`, rescored = `${root}/rescored.jsonl`;
  const rows0 = (await Deno.readTextFile(FIXTURE)).trim().split("\n").map((l) => JSON.parse(l));
  await Deno.writeTextFile(
    unscored,
    rows0.map(({ reward: _r, ...row }) => JSON.stringify(row)).join("\n") + "\n",
  );
  const score = await run("--import", unscored, "--score", "--workers", "1", "--out", rescored);
  assert.equal(score.code, 0, score.out);
  assert.deepEqual((await readJsonl(Trajectory, rescored)).map((t) => t.reward), rows0.map((r) => r.reward));

  const bad = await run("--run", root, "--format", "sft", "--what", "actor");
  assert.equal(bad.code, 2);
  assert.match(bad.out, /actor data can be written as trl or openrlhf, not sft/);
  const both = await run("--run", root, "--import", FIXTURE, "--out", kit);
  assert.equal(both.code, 2);
  await Deno.remove(root, { recursive: true });
});
