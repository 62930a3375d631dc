"""Smoke check of the GPU machine: ComfyUI imports, the pack loads, attention libraries run,
a true-config Wan 1.3B forward runs. Usage: python3 bench/gpu_check.py [--out DIR]"""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

import accel_harness as H  # noqa: E402

# no --smoke: this script checks the GPU machine itself (CUDA-only attention libraries, a true-size Wan forward);
# on a CPU there is nothing for it to check
ap = runner.parser(__doc__, smoke=None)
a = ap.parse_args()
t0 = time.time()
H.bootstrap(cpu=False)
pack = H.load_pack()
import torch  # noqa: E402

print("pack loaded", round(time.time() - t0, 1), "s; nodes:", sorted(pack.nodes.NODE_CLASS_MAPPINGS))
print(H.pack_module("accel.common.hardware").hardware_report(refresh=True))
res = {}
q = torch.randn(1, 4096, 8, 128, device="cuda", dtype=torch.bfloat16)
try:
    from fa3_fwd_interface import flash_attn_func
    o = flash_attn_func(q, q, q)
    o = o[0] if isinstance(o, tuple) else o
    ref = torch.nn.functional.scaled_dot_product_attention(*(x.transpose(1, 2) for x in (q, q, q))).transpose(1, 2)
    res["fa3_rel_err"] = runner.compare(o, ref)["rel_l2"]
except Exception as e:
    res["fa3_error"] = repr(e)
try:
    from sageattention import sageattn
    o = sageattn(q, q, q, tensor_layout="NHD")
    ref = torch.nn.functional.scaled_dot_product_attention(*(x.transpose(1, 2) for x in (q, q, q))).transpose(1, 2)
    res["sage_rel_err"] = runner.compare(o, ref)["rel_l2"]
except Exception as e:
    res["sage_error"] = repr(e)
from accel_harness import models as M  # noqa: E402
from accel_harness.forward import Forward  # noqa: E402

t = time.time()
m = M.wan_model("t2v", "1.3B", device="cuda", dtype=torch.bfloat16)
res["build_1.3B_s"] = round(time.time() - t, 1)
x = torch.randn(1, 16, 21, 60, 104, device="cuda", dtype=torch.bfloat16)
ctx = torch.randn(1, 512, 4096, device="cuda", dtype=torch.bfloat16)
with Forward(m) as f:
    for _ in range(2):
        f(x, 0.9, ctx)
    torch.cuda.synchronize()
    ts = []
    for _ in range(3):
        s = time.perf_counter()
        f(x, 0.9, ctx)
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - s)
res["wan1.3B_480p81f_forward_ms"] = sorted(ts)[1] * 1000
# the host link: what weight streaming on a small card can move per second (a Wan 2.2 A14B expert's fp8 file is
# 14 GiB: on a card that cannot hold both experts, each Queue moves most of each expert at least once)
link = {}
for size_mib in (32, 256, 1024):
    n = size_mib << 20
    dev = torch.empty(n, dtype=torch.uint8, device="cuda")
    for kind, host in (("pinned", torch.empty(n, dtype=torch.uint8).pin_memory()),
                       ("pageable", torch.empty(n, dtype=torch.uint8))):
        for direction in ("h2d", "d2h"):
            ts = []
            for _ in range(6):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                (dev.copy_(host, non_blocking=True) if direction == "h2d" else host.copy_(dev, non_blocking=True))
                end.record()
                end.synchronize()
                ts.append(start.elapsed_time(end) / 1000)
            med = sorted(ts[1:])[len(ts[1:]) // 2]  # the median after the first (warm-up) copy
            link[f"{direction}_{kind}_{size_mib}MiB_GBps"] = round(n / med / 1e9, 2)
    del dev
res["host_link"] = link
print("host link (GB/s, median of 5):", link)
res["gpu"] = torch.cuda.get_device_name(0)
res["torch"] = torch.__version__
res["run_meta"] = runner.metadata("cuda")
print(json.dumps(res, indent=1))
runner.write(a.out, "gpu_check", res)
