"""Compare two tensors the way a user judges "did acceleration change my result": max/mean abs, rel L2, cosine."""
from __future__ import annotations


def tensor_diff(a, b) -> dict:
    """Differences between two same-shape tensors, computed in float64 on the CPU.

    Returns max_abs, mean_abs, rel_l2 (||a-b|| / ||b||), cosine (of the flattened tensors), the reference's
    max abs (scale for max_abs), shape and whether any value is not finite.
    """
    import torch

    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}")
    x = a.detach().to("cpu", torch.float64).flatten()
    y = b.detach().to("cpu", torch.float64).flatten()
    finite = bool(torch.isfinite(x).all() and torch.isfinite(y).all())
    d = (x - y).abs()
    ny = float(y.norm())
    nx = float(x.norm())
    cos = float((x @ y) / (nx * ny)) if nx > 0 and ny > 0 else (1.0 if nx == ny else 0.0)
    return {
        "max_abs": float(d.max()) if d.numel() else 0.0,
        "mean_abs": float(d.mean()) if d.numel() else 0.0,
        "rel_l2": float((x - y).norm() / ny) if ny > 0 else float((x - y).norm()),
        "cosine": cos,
        "ref_max_abs": float(y.abs().max()) if y.numel() else 0.0,
        "shape": list(a.shape),
        "finite": finite,
    }


def format_diff(d: dict, a_name: str = "a", b_name: str = "b") -> str:
    return (f"{a_name} vs {b_name}: shape {tuple(d['shape'])}  max|diff| {d['max_abs']:.4g} "
            f"(reference max|x| {d['ref_max_abs']:.4g})  mean|diff| {d['mean_abs']:.4g}  "
            f"rel L2 {d['rel_l2']:.4g}  cosine {d['cosine']:.6f}" + ("" if d["finite"] else "  NON-FINITE VALUES"))


def latent_diff_report(a, b, label: str = "accelerated vs stock") -> tuple:
    """Accel Latent Diff: (report text, max |a - b|, cosine) of two latents; AccelError naming latent_b when their
    shapes differ."""
    from .errors import AccelError

    try:
        d = tensor_diff(a, b)
    except ValueError as e:
        raise AccelError("latent_b", str(e),
                         "Connect two latents of the same size (same width, height, length and batch)") from None
    names = (label or "a vs b").split(" vs ", 1)
    text = format_diff(d, *(names if len(names) == 2 else (label, "reference")))
    return text, d["max_abs"], d["cosine"]
