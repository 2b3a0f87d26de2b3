/** A loopback OpenAI-compatible server for tests: scripted responses, every request body kept. */
/** A loopback server answering every request with `respond`; counts requests. */
export async function fake(respond: (n: number, body: Record<string, unknown>) => Response) {
  let requests = 0;
  const bodies: Record<string, unknown>[] = [];
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => resolve(port) },
    async (req) => {
      const body = await req.json();
      bodies.push(body);
      return respond(++requests, body);
    },
  );
  const port = await promise;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    bodies,
    get requests() {
      return requests;
    },
    close: () => server.shutdown(),
  };
}

export const errorResponse = (status: number, message: string) =>
  new Response(
    JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code: null } }),
    {
      status,
      headers: { "content-type": "application/json" },
    },
  );

/** A chat completion carrying `content`, as an OpenAI-compatible server returns it. */
export const completionResponse = (content: string) =>
  Response.json({
    id: "fake",
    object: "chat.completion",
    created: 0,
    model: "fake",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
