#!/usr/bin/env python3
"""PyTorch twin of lib/nn/model.ts: the same decoder (RMSNorm pre-norm, fused QKV, RoPE "rotate half" or
learned positions, SwiGLU or tanh-GELU MLP, final norm, LM head) with the same parameter names and the
same [in, out] weight layout, so a tfjs checkpoint loads as is.

Used by tasks/bench/model_bench.ts to put tfjs numbers next to PyTorch on the same machine:

    /usr/bin/python3 tasks/bench/torch_twin.py --json '{"mode": "bench", "config": {...}, "batch": 8, ...}'
    /usr/bin/python3 tasks/bench/torch_twin.py --json '{"mode": "parity", "checkpoint": "dir", "tokens": [[1, 2]]}'

Prints one JSON object on stdout. Attention is written out (scores + mask, softmax, @ V) rather than
F.scaled_dot_product_attention, which torch 1.13 (Debian's python3-torch) lacks; it is also exactly what
the tfjs model computes, so the comparison is like for like.
"""
import argparse
import json
import math
import os
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # model_bench.ts reports this and skips the twin
    print(json.dumps({"error": "PyTorch is not installed (apt-get install python3-torch libopenblas0-pthread)"}))
    sys.exit(3)


def parameter_specs(c):
    """(name, shape, init std or "ones") in model.ts's parameterSpecs order."""
    d, f, std = c["dModel"], c["ffnHidden"], 0.02
    rstd = std / math.sqrt(2 * c["layers"])
    specs = [("tok_emb", (c["vocabSize"], d), std)]
    if c["positional"] == "learned":
        specs.append(("pos_emb", (c["contextLength"], d), std))
    for i in range(c["layers"]):
        p = f"layers.{i}."
        specs += [(p + "attn_norm", (d,), "ones"), (p + "wqkv", (d, 3 * d), std), (p + "wo", (d, d), rstd),
                  (p + "mlp_norm", (d,), "ones")]
        specs.append((p + "w_gate_up", (d, 2 * f), std) if c["mlp"] == "swiglu" else (p + "w_up", (d, f), std))
        specs.append((p + "w_down", (f, d), rstd))
    specs += [("final_norm", (d,), "ones"), ("lm_head", (d, c["vocabSize"]), std)]
    return specs


class Twin(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        for name, shape, init in parameter_specs(c):
            value = torch.ones(shape) if init == "ones" else torch.randn(shape) * init
            # Module attribute names cannot contain ".", hence "layers_0_wqkv" for "layers.0.wqkv".
            self.register_parameter(name.replace(".", "_"), torch.nn.Parameter(value))
        dh = c["dModel"] // c["heads"]
        inv = torch.pow(10000.0, -torch.arange(0, dh, 2, dtype=torch.float32) / dh)
        angles = torch.arange(c["contextLength"], dtype=torch.float32)[:, None] * inv[None, :]
        self.register_buffer("cos", torch.cat([angles.cos(), angles.cos()], -1), persistent=False)
        self.register_buffer("sin", torch.cat([angles.sin(), angles.sin()], -1), persistent=False)

    def w(self, name):
        return getattr(self, name.replace(".", "_"))

    def norm(self, x, gain):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.c["normEps"]) * gain

    def rope(self, x, pos):  # x [B, H, T, dh], pos [B, T]
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
        return x * self.cos[pos][:, None] + rotated * self.sin[pos][:, None]

    def forward(self, tokens, pos=None, cache=None, last_only=False):
        c, (b, t) = self.c, tokens.shape
        heads, dh = c["heads"], c["dModel"] // c["heads"]
        past = cache[0][0].shape[2] if cache else 0
        if pos is None:
            pos = (torch.arange(t) + past)[None].expand(b, t)
        x = self.w("tok_emb")[tokens]
        if c["positional"] == "learned":
            x = x + self.w("pos_emb")[pos]
        mask = torch.full((t, past + t), -1e9).triu(past + 1)
        new_cache = []
        for i in range(c["layers"]):
            p = f"layers.{i}."
            qkv = self.norm(x, self.w(p + "attn_norm")) @ self.w(p + "wqkv")
            q, k, v = (y.view(b, t, heads, dh).transpose(1, 2) for y in qkv.split(c["dModel"], -1))
            if c["positional"] == "rope":
                q, k = self.rope(q, pos), self.rope(k, pos)
            if cache:
                k, v = torch.cat([cache[i][0], k], 2), torch.cat([cache[i][1], v], 2)
            new_cache.append((k, v))
            att = torch.softmax((q / math.sqrt(dh)) @ k.transpose(-1, -2) + mask, -1) @ v
            x = x + att.transpose(1, 2).reshape(b, t, c["dModel"]) @ self.w(p + "wo")
            m = self.norm(x, self.w(p + "mlp_norm"))
            if c["mlp"] == "swiglu":
                gate, up = (m @ self.w(p + "w_gate_up")).chunk(2, -1)
                act = F.silu(gate) * up
            else:
                act = F.gelu(m @ self.w(p + "w_up"), approximate="tanh")
            x = x + act @ self.w(p + "w_down")
        x = self.norm(x, self.w("final_norm"))
        return (x[:, -1:] if last_only else x) @ self.w("lm_head"), new_cache


def load_checkpoint(path):
    """A Twin holding the weights of a lib/nn/checkpoint.ts folder."""
    with open(os.path.join(path, "checkpoint.json")) as f:
        meta = json.load(f)
    with open(os.path.join(path, "weights.bin"), "rb") as f:
        flat = torch.frombuffer(bytearray(f.read()), dtype=torch.float32)
    model = Twin(meta["config"])
    with torch.no_grad():
        for e in meta["weights"]:
            if e["name"] in ("value_head", "value_bias"):
                continue  # the twin has no scalar head
            n = math.prod(e["shape"])
            model.w(e["name"]).copy_(flat[e["offset"]: e["offset"] + n].view(*e["shape"]))
    return model


def bench_train(config, batch, seq_len, steps):
    """Seconds and tokens/s of forward + backward + clip + AdamW, after one warm-up step."""
    torch.manual_seed(0)
    model = Twin(config)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
    tokens = torch.randint(0, config["vocabSize"], (batch, seq_len))

    def step():
        logits, _ = model(tokens)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, config["vocabSize"]), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = (time.perf_counter() - start) / steps
    return {"stepSeconds": seconds, "trainTokensPerS": batch * seq_len / seconds}


@torch.no_grad()
def bench_sample(config, prompts, prompt_len, new_tokens):
    """Prefill + KV-cache decoding of `new_tokens` per prompt; tokens/s over the whole call."""
    torch.manual_seed(0)
    model = Twin(config)
    tokens = torch.randint(0, config["vocabSize"], (prompts, prompt_len))
    model(tokens, last_only=True)  # warm-up on the real shapes, as the tfjs side does
    start = time.perf_counter()
    logits, cache = model(tokens, last_only=True)
    for i in range(new_tokens):
        nxt = torch.multinomial(torch.softmax(logits[:, -1], -1), 1)
        if i == new_tokens - 1:
            break
        logits, cache = model(nxt, pos=torch.full((prompts, 1), prompt_len + i), cache=cache, last_only=True)
    seconds = time.perf_counter() - start
    return {"sampleSeconds": seconds, "sampleTokensPerS": prompts * new_tokens / seconds}


def main():
    parser = argparse.ArgumentParser(description="PyTorch twin of lib/nn/model.ts")
    parser.add_argument("--json", required=True, help="request object (see the module docstring)")
    req = json.loads(parser.parse_args().json)
    if req.get("mode") == "parity":
        torch.set_num_threads(1)
        with torch.no_grad():
            logits, _ = load_checkpoint(req["checkpoint"])(torch.tensor(req["tokens"]))
        print(json.dumps({"logits": logits.flatten().tolist()}))
        return
    out = {"torch": torch.__version__, "byThreads": {}}
    for threads in req.get("threads", [1, 2]):
        torch.set_num_threads(threads)
        result = {"threads": threads}
        result.update(bench_train(req["config"], req["batch"], req["seqLen"], req["steps"]))
        if req.get("sample"):
            s = req["sample"]
            result.update(bench_sample(req["config"], s["prompts"], s["promptLen"], s["newTokens"]))
        out["byThreads"][str(threads)] = result
    runs = out["byThreads"].values()
    best_train = max(runs, key=lambda r: r["trainTokensPerS"])
    out["best"] = {"trainTokensPerS": best_train["trainTokensPerS"], "stepSeconds": best_train["stepSeconds"],
                   "trainThreads": best_train["threads"]}
    if req.get("sample"):
        best_sample = max(runs, key=lambda r: r["sampleTokensPerS"])
        out["best"].update(sampleTokensPerS=best_sample["sampleTokensPerS"], sampleThreads=best_sample["threads"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
