#!/usr/bin/env python3
"""Does the memory layout of q/k/v change attention kernel time? And which layout reaches the attention
kernel when a Wan block is compiled?

Part 1: Wan 14B 480p 81f self-attention shape (B=1, L=32760, H=40, D=128, bf16/fp16): cuDNN SDPA and FA3
(fa3-fwd) on the same values stored two ways: "blhd" memory (what ComfyUI's eager Wan hands over: a
(B, L, H*D) tensor viewed per head) and "bhld" memory (each head's rows contiguous).
Part 2: a Wan 14B-shaped model with 2 blocks under Accel Wan Level-1 (compile mode default): the strides
of q/k/v that reach the FA3 custom op, recorded from inside the op.

Run (GPU machine): python3 bench/attention_layout.py --out bench/results/local/layout
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files (imports no torch)


def main(argv=None):
    # no --smoke: what it measures (cuDNN / FA3 kernels on two memory layouts, strides at the FA3 op under compile)
    # exists only on a CUDA GPU
    ap = runner.parser(__doc__, smoke=None)
    a = ap.parse_args(argv)
    import accel_harness as H

    H.bootstrap(cpu=False)
    H.load_pack()
    import torch
    import torch.nn.functional as Fn

    res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "times_ms": {}, "compiled_strides": [],
           "run_meta": runner.metadata("cuda")}
    B, L, Hh, D = 1, 32760, 40, 128

    time_call = H.pack_module("kernels.attention.autotune").time_call

    def time_ms(fn):  # median ms per call (CUDA events), the autotuner's timer
        return round(time_call(fn, torch.device("cuda"), warmup=1, reps=10), 3)

    try:
        import fa3_fwd_interface as fa3
    except Exception:
        fa3 = None
    for dt in (torch.float16, torch.bfloat16):
        base = [torch.randn(B, L, Hh, D, device="cuda", dtype=dt) for _ in range(3)]
        blhd = base  # memory (B, L, H, D)
        bhld = [t.transpose(1, 2).contiguous().transpose(1, 2) for t in base]  # same values, memory (B, H, L, D)
        for name, qkv in (("blhd", blhd), ("bhld", bhld)):
            q, k, v = (t.transpose(1, 2) for t in qkv)  # SDPA view (B, H, L, D)
            with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):
                res["times_ms"][f"cudnn {str(dt)[6:]} "
                                f"{name}"] = time_ms(lambda q=q, k=k, v=v: Fn.scaled_dot_product_attention(q, k, v))
            if fa3 is not None and dt == torch.bfloat16:
                res["times_ms"][f"fa3 bf16 {name}"] = time_ms(lambda qkv=qkv: fa3.flash_attn_func(*qkv))
            print(res["times_ms"], flush=True)
        del base, blhd, bhld

    # part 2: strides at the FA3 custom op inside a compiled Wan block
    from accel_harness import models as M
    from accel_harness.forward import Forward

    base_mod = H.pack_module("kernels.attention.base")
    L1 = H.pack_module("accel.wan_level1.preset")
    model = M.wan_model("t2v", "14B", device="cuda", dtype=torch.bfloat16, num_layers=2)
    m, _ = L1.apply_level1(model, compile_mode="default")
    for opname, impl in list(base_mod._impls.items()):
        def rec(q, k, v, mask, scale, layout, _impl=impl, _name=opname):
            res["compiled_strides"].append({"op": _name, "q": list(q.stride()), "k": list(k.stride()),
                                            "v": list(v.stride()),
                                            "shape": list(q.shape), "dtype": str(q.dtype),
                                            "contiguous": q.is_contiguous()})
            return _impl(q, k, v, mask, scale, layout)
        base_mod._impls[opname] = rec
    x = torch.randn(1, 16, 21, 60, 104, device="cuda")
    ctx = torch.randn(1, 512, 4096, device="cuda", dtype=torch.bfloat16)
    with Forward(m) as f:
        f(x, 0.9, ctx)
    res["compiled_strides"] = res["compiled_strides"][:4]
    print(json.dumps(res, indent=1))
    runner.write(a.out, "attention_layout", res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
