import assert from "node:assert/strict";
import { browserBinary } from "../../../lib/util/browser.ts";
import {
  BrowserNotFoundError,
  injectStylesheet,
  PageRenderer,
  PLACEHOLDER_RGB,
  placeholderSize,
  type RenderResult,
  type RgbImage,
  VIEWPORT_WIDTH,
} from "../../../lib/colbench/frontend/render.ts";
import {
  blackImage,
  builtinSimilarity,
  ClipSimilarity,
  winOutcomes,
  winRate,
} from "../../../lib/colbench/frontend/similarity.ts";

// Puppeteer keeps websocket and timer resources across tests by design (one browser per renderer).
const opts = { sanitizeOps: false, sanitizeResources: false };

function pixel(img: RgbImage, x: number, y: number): [number, number, number] {
  const i = (y * img.width + x) * 3;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
}

function ok(r: RenderResult): Extract<RenderResult, { ok: true }> {
  if (!r.ok) throw new Error(`render failed: ${r.reason}`);
  return r;
}

const RED_TOP_LEFT = `<!doctype html><html><head></head><body style="margin:0;background:#fff">
<div style="width:100px;height:50px;background:rgb(255,0,0)"></div>
<div style="width:100px;height:50px;background:rgb(0,0,255);margin-left:200px"></div></body></html>`;

function designedPage(hue: number): string {
  return `<html><body style="margin:0;font-family:sans-serif">
<header style="background:hsl(${hue},70%,40%);color:white;padding:40px;font-size:40px">Acme Studio</header>
<section style="display:flex;gap:20px;padding:40px;background:hsl(${hue},30%,92%)">
${
    [1, 2, 3].map((i) =>
      `<div style="flex:1;height:300px;background:hsl(${hue + 30 * i},60%,60%)">Card ${i}</div>`
    ).join("")
  }
</section><footer style="background:#222;color:#eee;padding:30px">© 2025</footer></body></html>`;
}

Deno.test("renders at the fixed viewport with the expected pixel colours", opts, async () => {
  const r = await PageRenderer.create({ poolSize: 1 });
  try {
    const short = ok(await r.render(RED_TOP_LEFT));
    assert.equal(short.image.width, VIEWPORT_WIDTH);
    assert.equal(short.image.height, 720); // shorter content is padded to the viewport height
    assert.equal(short.image.data.length, 1280 * 720 * 3);
    assert.deepEqual(pixel(short.image, 10, 10), [255, 0, 0]);
    assert.deepEqual(pixel(short.image, 250, 75), [0, 0, 255]);
    assert.deepEqual(pixel(short.image, 150, 10), [255, 255, 255]);
    assert.deepEqual([...short.png.slice(1, 4)].map((c) => String.fromCharCode(c)).join(""), "PNG");
    const tall = ok(
      await r.render(`<body style="margin:0"><div style="height:2000px;background:#0f0"></div>`),
    );
    assert.equal(tall.image.height, 2000); // full page
    assert.deepEqual(pixel(tall.image, 640, 1990), [0, 255, 0]);
    const huge = ok(
      await r.render(`<body style="margin:0"><div style="height:9000px;background:#0f0"></div>`),
    );
    assert.equal(huge.image.height, 4096); // capped
  } finally {
    await r.close();
  }
});

Deno.test("the injected stylesheet applies and the page's own rules win", opts, async () => {
  assert.equal(injectStylesheet("<!DOCTYPE html><p>x", "a{}"), "<!DOCTYPE html><style>a{}</style><p>x");
  assert.equal(
    injectStylesheet("<html lang=en><head><title>t</title>", "a{}"),
    "<html lang=en><head><style>a{}</style><title>t</title>",
  );
  const r = await PageRenderer.create({
    poolSize: 1,
    stylesheet: ".box{width:60px;height:60px;background:#00ff00}body{margin:0}",
  });
  try {
    const img = ok(
      await r.render(
        `<html><head></head><body><div class="box"></div><div class="box" style="background:#000"></div></body></html>`,
      ),
    ).image;
    assert.deepEqual(pixel(img, 30, 30), [0, 255, 0]);
    assert.deepEqual(pixel(img, 30, 90), [0, 0, 0]);
  } finally {
    await r.close();
  }
});

Deno.test(
  "no network: external resources are never fetched, images become grey placeholders",
  opts,
  async () => {
    let hits = 0;
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
      hits++;
      return new Response("body{background:red}", { headers: { "content-type": "text/css" } });
    });
    const base = `http://127.0.0.1:${server.addr.port}`;
    assert.deepEqual(placeholderSize("https://picsum.photos/id/48/200/100"), { width: 200, height: 100 });
    assert.deepEqual(placeholderSize("https://source.unsplash.com/random/640x480/?city"), {
      width: 640,
      height: 480,
    });
    const r = await PageRenderer.create({ poolSize: 1 });
    try {
      const res = ok(
        await r.render(`<html><head><link rel="stylesheet" href="${base}/style.css"></head>
<body style="margin:0;background:#fff"><img src="${base}/photo.jpg" width="100" height="80" style="display:block">
<img src="https://picsum.photos/id/48/200/100" style="display:block">
<div style="width:50px;height:50px;background-image:url(${base}/bg.png)"></div></body></html>`),
      );
      assert.equal(hits, 0);
      assert.ok(res.blocked >= 3, `blocked ${res.blocked}`);
      assert.deepEqual(pixel(res.image, 50, 40), [...PLACEHOLDER_RGB]); // sized by its attributes
      assert.deepEqual(pixel(res.image, 190, 170), [...PLACEHOLDER_RGB]); // 200×100 from the URL
      assert.deepEqual(pixel(res.image, 210, 170), [255, 255, 255]); // ... and no wider
      assert.deepEqual(pixel(res.image, 1000, 10), [255, 255, 255]); // the external stylesheet never applied
    } finally {
      await r.close();
      await server.shutdown();
    }
  },
);

const SCRIPTED =
  `<body style="margin:0"><div id="a" style="width:50px;height:50px;background:rgb(255,0,0)"></div>
<script>document.getElementById("a").style.background = "rgb(0,0,255)";</script></body>`;
const GOOD = (c: string) => `<body style="margin:0;background:${c}"><p>ok</p></body>`;

Deno.test("scripts are off by default: a never-ending script is harmless", opts, async () => {
  const r = await PageRenderer.create({ poolSize: 1, timeoutMs: 3000 });
  try {
    assert.deepEqual(pixel(ok(await r.render(SCRIPTED)).image, 10, 10), [255, 0, 0]);
    const loop = ok(
      await r.render(`<body style="background:rgb(0,128,0)"><p>x</p><script>while(true){}</script>`),
    );
    assert.deepEqual(pixel(loop.image, 600, 600), [0, 128, 0]);
  } finally {
    await r.close();
  }
});

Deno.test(
  "isolation: a hung, a huge and a broken page fail alone; the renderer keeps working",
  opts,
  async () => {
    const r = await PageRenderer.create({ poolSize: 2, javaScript: true, timeoutMs: 2000 });
    try {
      assert.deepEqual(pixel(ok(await r.render(SCRIPTED)).image, 10, 10), [0, 0, 255]); // scripts run when enabled
      const huge = `<body>${"<p>filler text</p>".repeat(50_000_000 / 18)}</body>`;
      const batch = [
        GOOD("rgb(255,0,0)"),
        `<body><p>spin</p><script>while(true){}</script></body>`,
        GOOD("rgb(0,255,0)"),
        huge,
        `<html><body><div class="never closed`, // EOF inside a tag: the parser drops it, nothing to render
        GOOD("rgb(0,0,255)"),
      ];
      const t0 = performance.now();
      const results = await r.renderAll(batch);
      assert.ok(performance.now() - t0 < 8000);
      const expect = [[255, 0, 0], null, [0, 255, 0], null, null, [0, 0, 255]];
      results.forEach((res, i) => {
        if (expect[i]) assert.deepEqual(pixel(ok(res).image, 640, 400), expect[i], `page ${i}`);
        else assert.equal(res.ok, false, `page ${i} should fail`);
      });
      assert.match((results[1] as { reason: string }).reason, /timeout/);
      assert.match((results[3] as { reason: string }).reason, /too large/);
      assert.match((results[4] as { reason: string }).reason, /empty document/);
      // Afterwards every tab (including the replaced one) serves again.
      const after = await r.renderAll([GOOD("rgb(1,2,3)"), GOOD("rgb(4,5,6)"), GOOD("rgb(7,8,9)")]);
      assert.deepEqual(after.map((a) => pixel(ok(a).image, 5, 700)), [[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
    } finally {
      await r.close();
    }
  },
);

Deno.test("a missing browser is a clear error naming the path and the install command", opts, async () => {
  await assert.rejects(
    () => PageRenderer.create({ executablePath: "/nonexistent/chromium" }),
    (e: Error) =>
      e instanceof BrowserNotFoundError && e.message.includes("/nonexistent/chromium") &&
      e.message.includes("apt-get install"),
  );
});

Deno.test(
  "a browser that dies is relaunched and no page is blamed; one that cannot restart throws",
  opts,
  async () => {
    // Killed between pages and while pages are in flight: every page still renders, on a new browser.
    const r = await PageRenderer.create({ poolSize: 2 });
    ok(await r.render(GOOD("white")));
    const first = r.pid!;
    Deno.kill(first, "SIGKILL");
    for (const result of await r.renderAll([GOOD("red"), GOOD("blue"), GOOD("white")])) ok(result);
    const second = r.pid!;
    assert.notEqual(second, first);
    const inFlight = r.renderAll([GOOD("red"), GOOD("blue"), GOOD("white"), GOOD("red")]);
    Deno.kill(second, "SIGKILL");
    for (const result of await inFlight) ok(result);
    assert.notEqual(r.pid, second);
    await r.close();
    // A Chromium that starts once and never again: the loss is an error, not a failed page.
    const dir = await Deno.makeTempDir();
    const once = `${dir}/chromium-once`;
    const chromium = (await browserBinary()).executablePath;
    await Deno.writeTextFile(
      once,
      `#!/bin/sh\n[ -e "$0.used" ] && exit 1\ntouch "$0.used"\nexec ${chromium} "$@"\n`,
    );
    await Deno.chmod(once, 0o755);
    const doomed = await PageRenderer.create({ poolSize: 2, executablePath: once });
    Deno.kill(doomed.pid!, "SIGKILL");
    await assert.rejects(() => doomed.render(GOOD("white")), /could not be started again/);
    await doomed.close();
    await Deno.remove(dir, { recursive: true });
  },
);

Deno.test("close() leaves no chromium process and removes the profile", opts, async () => {
  const r = await PageRenderer.create({ poolSize: 2 });
  ok(await r.render(GOOD("white")));
  const pid = r.pid;
  assert.ok(pid !== undefined);
  // The browser and every process below it (helpers may not name the profile on their command line).
  const parentOf = (p: string) => {
    try {
      return +Deno.readTextFileSync(`/proc/${p}/stat`).replace(/^.*\) /s, "").split(" ")[1];
    } catch {
      return 0; // exited meanwhile
    }
  };
  const procs = [...Deno.readDirSync("/proc")].map((e) => e.name).filter((n) => /^\d+$/.test(n));
  const tree = procs.filter((p) => {
    for (let q = +p; q > 1; q = parentOf(String(q))) if (q === pid) return true;
    return false;
  });
  assert.ok(tree.length >= 2, "browser and its helpers are found before close");
  const alive = () =>
    tree.filter((p) => {
      try {
        return Deno.readTextFileSync(`/proc/${p}/cmdline`).includes("chromium");
      } catch {
        return false;
      }
    });
  await r.close();
  // Child processes may need a moment to be reaped after the browser exits.
  for (let i = 0; i < 50 && alive().length > 0; i++) await new Promise((res) => setTimeout(res, 100));
  assert.deepEqual(alive(), []);
  await assert.rejects(() => Deno.stat(r.userDataDir), Deno.errors.NotFound);
  assert.equal((await r.render(GOOD("white"))).ok, false); // closed
});

Deno.test("builtin similarity: identity 1, symmetric, black page low, slight change high", opts, async () => {
  const r = await PageRenderer.create({ poolSize: 2 });
  let page: RgbImage, shifted: RgbImage, other: RgbImage;
  try {
    const [a, b, c] = await r.renderAll([designedPage(200), designedPage(206), designedPage(20)]);
    page = ok(a).image;
    shifted = ok(b).image;
    other = ok(c).image;
  } finally {
    await r.close();
  }
  for (const geometry of ["center-crop", "resize"] as const) {
    const sim = builtinSimilarity({ geometry });
    assert.equal(sim.scoreSync(page, page), 1);
    const s = sim.scoreSync(page, shifted);
    assert.equal(s, sim.scoreSync(shifted, page));
    assert.ok(s > 0.8 && s < 1, `${geometry} slight change ${s}`);
    const black = sim.scoreSync(blackImage(), page);
    assert.ok(black < 0.2, `${geometry} black ${black}`);
    const o = sim.scoreSync(page, other);
    assert.ok(o < s && o > black, `${geometry} other palette ${o} vs ${s}, ${black}`);
    assert.equal(await sim.score(page, other), o);
  }
});

Deno.test("winRate: strict wins, half ties, bootstrap CI", () => {
  const w = winRate([0.9, 0.5, 0.7, 0.2], [0.8, 0.6, 0.7, 0.1]);
  assert.equal(w.mean, (1 + 0 + 0.5 + 1) / 4);
  assert.deepEqual([w.wins, w.ties, w.losses, w.n], [2, 1, 1, 4]);
  assert.ok(w.lo <= w.mean && w.mean <= w.hi);
  assert.equal(winRate([0.3, 0.4], [0.3, 0.4]).mean, 0.5); // against itself: 50 %, as in the paper
  assert.throws(() => winRate([1], [1, 2]), RangeError);
  assert.deepEqual(winOutcomes([0.9, 0.5, 0.7, 0.2], [0.8, 0.6, 0.7, 0.1]), [1, 0, 0.5, 1]);
  // Two seeds of the same two pages: the interval resamples pages, keeping both seeds of each.
  const pooled = winRate([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5], { tasks: 2 });
  assert.deepEqual([pooled.mean, pooled.n], [0.5, 4]);
  assert.ok(pooled.lo === 0 && pooled.hi === 1, "one page always wins, the other always loses");
});

Deno.test("the CLIP path without local model files is a clear error", async () => {
  await assert.rejects(() => ClipSimilarity.load({ modelDir: "/nonexistent/clip" }), /lacks config\.json/);
  if (Deno.env.get("CLIP_MODEL_DIR") === undefined) {
    await assert.rejects(() => ClipSimilarity.load(), /CLIP_MODEL_DIR/);
  }
});
