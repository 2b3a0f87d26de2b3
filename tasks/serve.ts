/**
 * `deno task serve`: serves a kit checkpoint (default: the shipped base policy) over an OpenAI-compatible
 * HTTP API, so `deno task eval --agent openai:<name>@http://127.0.0.1:8000/v1` (or any OpenAI client)
 * can play it. With a request `seed`, samples equal in-process `PolicyAgent` samples with per-episode
 * seeding (see lib/llm/server.ts).
 *
 * @module
 */
import { z } from "zod";
import { BASE_POLICY_DIR } from "../lib/nn/pretrained.ts";
import { BackendFlag, selectBackend, useBackendFlag } from "../lib/nn/backend.ts";
import { loadPretrained } from "../lib/nn/pretrained.ts";
import { startServer } from "../lib/llm/server.ts";
import { exitWithEngine, runCli } from "../lib/util/cli.ts";

const Flags = z.object({
  backend: BackendFlag,
  checkpoint: z.string().default(BASE_POLICY_DIR).describe("checkpoint folder (default: data/policy/base)"),
  port: z.coerce.number().int().min(0).max(65535).default(8000).describe("port (0 = any free port)"),
  host: z.string().default("127.0.0.1").describe("address to listen on (default: loopback only)"),
  name: z.string().optional().describe("model id clients send (default: the checkpoint folder's name)"),
  maxTokens: z.coerce.number().int().min(1).default(200).describe(
    "cap and default of max_tokens (200 = the policy agent's default, for equal prompt budgets)",
  ),
  quiet: z.stringbool().default(false).describe("no line per request"),
  apiKey: z.string().optional().describe(
    "bearer token every request must carry (default: $SWEET_SERVE_API_KEY; none on loopback)",
  ),
  open: z.stringbool().default(false).describe("serve a non-loopback --host without an API key"),
  maxBody: z.coerce.number().int().min(1024).default(1 << 20).describe(
    "largest request body, bytes (413 above)",
  ),
});

await runCli("serve", Flags, async (flags) => {
  exitWithEngine();
  useBackendFlag(flags.backend);
  const backend = await selectBackend();
  const { model, tokenizer } = await loadPretrained(flags.checkpoint, { trainable: false });
  const modelId = flags.name ?? (flags.checkpoint.replace(/\/+$/, "").split("/").at(-1) || "policy");
  const server = await startServer({
    model,
    tokenizer,
    modelId,
    maxTokens: flags.maxTokens,
    port: flags.port,
    hostname: flags.host,
    apiKey: flags.apiKey ?? Deno.env.get("SWEET_SERVE_API_KEY"),
    allowOpen: flags.open,
    maxBodyBytes: flags.maxBody,
    ...(flags.quiet ? {} : { log: (line: string) => console.error(line) }),
  });
  console.log(
    `serving ${flags.checkpoint} as "${modelId}" at ${server.baseUrl} (tfjs ${backend.backend}; ` +
      `max_tokens <= ${flags.maxTokens}); try: deno task eval --agent openai:${modelId}@${server.baseUrl}`,
  );
  // Serve until interrupted: Ctrl-C or SIGTERM closes the listener and lets in-flight requests finish.
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => resolve());
  });
  await server.close();
});
