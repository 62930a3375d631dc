"""Accel Save Video (nodes/video.py, accel/video/, accel/vae/stream.py) writes the file ComfyUI's Create Video -> Save
Video writes: run through ComfyUI's own executor beside Save Video on the same frames (a tiny Wan sampled with random
conditioning, the tiny Wan 2.1 VAE), the files are read back with PyAV: container, codec, frame count, size, the
workflow and prompt in the metadata, the name from ComfyUI's counter, and the pixels against Save Video's file
(identical with `cpu (as Save Video)`; within a stated PSNR with frame threads). Also: a decode that cannot hand its
frames out in order (tiled) is encoded after it, a GPU encoder that does not open falls back (or stops with
on_failure error), names are never reused, and the inputs are checked."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import accel_harness as H

av = pytest.importorskip("av")

WORKFLOW = {"workflow": {"nodes": [{"id": 1, "type": "KSampler"}], "links": [], "version": 0.4}}
FPS = 16.0


@pytest.fixture(scope="module")
def files(pack, M):
    import folder_paths

    unet = Path(folder_paths.get_folder_paths("diffusion_models")[0]) / "save_video_wan.safetensors"
    M.write_wan(unet, seed=0, dtype=torch.float32)
    vae = Path(folder_paths.get_folder_paths("vae")[0]) / "save_video_wan_vae.safetensors"
    M.save_safetensors(M.wan21_vae_state_dict("tiny", seed=0), vae)
    return unet.name, vae.name


def accel_save(prefix, source: dict, **kw):
    inputs = {"fps": FPS, "filename_prefix": prefix, "format": "auto", "codec": "auto", "encoder": "cpu",
              "cpu_preset": "medium", "on_failure": "fall back", **source, **kw}
    return {"class_type": "AccelSaveVideo", "inputs": inputs}


def prompt(files, tag: str, extra: dict) -> dict:
    unet, vae = files
    p = {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": unet, "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "3": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 2, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "4": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {"width": 96, "height": 64, "length": 9,
                                                                  "batch_size": 1}},
        "5": {"class_type": "KSampler", "inputs": {"model": ["1", 0], "seed": 3, "steps": 2, "cfg": 1.0,
                                                   "sampler_name": "euler", "scheduler": "simple", "positive": ["2", 0],
                                                   "negative": ["3", 0], "latent_image": ["4", 0], "denoise": 1.0}},
        "6": {"class_type": "VAELoader", "inputs": {"vae_name": vae}},
        "7": {"class_type": "VAEDecode", "inputs": {"samples": ["5", 0], "vae": ["6", 0]}},
        "8": {"class_type": "CreateVideo", "inputs": {"images": ["7", 0], "fps": FPS}},
        "9": {"class_type": "SaveVideo", "inputs": {"video": ["8", 0], "filename_prefix": f"video/{tag}_stock",
                                                    "format": "auto", "codec": "auto"}},
    }
    p.update(extra)
    return p


def run(p):
    from accel_harness.executor import run_prompt

    _, history = run_prompt(p, extra_data={"extra_pnginfo": WORKFLOW})
    return history


def output_file(item: dict) -> Path:
    import folder_paths

    return Path(folder_paths.get_output_directory()) / item["subfolder"] / item["filename"]


def saved(history, node: str) -> Path:
    return output_file(history["outputs"][node]["images"][0])


def report(history, node: str) -> str:
    return history["outputs"][node]["text"][0]


def read(path: Path) -> dict:
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
        return {"format": c.format.name, "codec": s.codec_context.name, "size": (s.height, s.width),
                "rate": s.average_rate, "metadata": dict(c.metadata),
                "frames": torch.from_numpy(np.stack(frames)).float()}


def psnr(a, b) -> float:
    mse = float(((a - b) ** 2).mean())
    return float("inf") if mse == 0 else 10 * torch.log10(torch.tensor(255.0 ** 2 / mse)).item()


def test_same_file_as_save_video(files):
    """One prompt: VAE Decode -> Create Video -> Save Video, and Accel Save Video decoding the same latent
    (`cpu (as Save Video)`: Save Video's settings, frames handed over while decoding) and saving VAE Decode's images
    (`cpu`: frame threads). Pixels: x264's threaded encodes differ from run to run under load (Save Video's own too:
    tens of levels on a few pixels of these noise-like frames), so each file's PSNR against the frames (8-bit, as
    Save Video converts them) must be within 0.5 dB of Save Video's file's."""
    h = run(prompt(files, "same", {
        "10": accel_save("video/same_accel", {"samples": ["5", 0], "vae": ["6", 0]}, encoder="cpu (as Save Video)"),
        "11": accel_save("video/same_img", {"images": ["7", 0]}),
        "12": {"class_type": "SaveLatent", "inputs": {"samples": ["5", 0], "filename_prefix": "latents/same"}},
    }))
    stock, accel, img = read(saved(h, "9")), read(saved(h, "10")), read(saved(h, "11"))
    assert saved(h, "10").name == "same_accel_00001_.mp4" and saved(h, "10").parent.name == "video"
    for f in (accel, img):
        assert f["format"] == stock["format"] and "mp4" in f["format"]
        assert f["codec"] == stock["codec"] == "h264" and f["size"] == stock["size"] == (64, 96)
        assert f["frames"].shape == stock["frames"].shape and f["frames"].shape[0] == 9
        assert f["rate"] == stock["rate"] == FPS
        # Save Video's metadata: every extra_pnginfo entry and the prompt, as JSON strings
        assert json.loads(f["metadata"]["workflow"]) == WORKFLOW["workflow"]
        assert json.loads(f["metadata"]["prompt"]) == json.loads(stock["metadata"]["prompt"])
    src = source(h, files)
    ref = psnr(stock["frames"], src)
    for f in (accel, img):
        assert psnr(f["frames"], src) >= ref - 0.5, (psnr(f["frames"], src), ref)
    text = report(h, "10")
    assert "encoded while it decoded" in text and "libx264" in text and "every setting Save Video's" in text
    assert "metadata: prompt, workflow embedded" in text
    assert "output: left to ComfyUI's own conversion, as in VAE Decode (the VAE decodes on cpu" in text
    assert re.search(r"time: \d+\.\d\d s in this node from its inputs to the closed file", text), text
    assert "converted to 8 bits where they were" in report(h, "11")


def source(history, files) -> torch.Tensor:
    """The prompt's frames as Save Video converts them: its saved latent decoded by the same VAE, to 8 bits."""
    import comfy.sd
    import comfy.utils
    import folder_paths

    item = history["outputs"]["12"]["latents"][0]
    import safetensors.torch

    lat = safetensors.torch.load_file(str(output_file(item)))["latent_tensor"].float()
    vae = comfy.sd.VAE(sd=comfy.utils.load_torch_file(folder_paths.get_full_path("vae", files[1])))
    with torch.inference_mode():
        images = vae.decode(lat)
    return (images.reshape(-1, *images.shape[-3:]) * 255).clamp(0, 255).byte().float()


def test_never_overwrites_and_counts_on(files, pack, mod, monkeypatch):
    """A second prompt gets the next number; a name Save Video's counter would reuse (here: forced) is skipped."""
    import folder_paths

    p = prompt(files, "count", {"10": accel_save("video/count_accel", {"images": ["7", 0]})})
    run(p)
    p["5"]["inputs"]["seed"] = 4
    h = run(p)
    assert saved(h, "10").name == "count_accel_00002_.mp4"
    first = saved(h, "10").with_name("count_accel_00001_.mp4")
    before = first.read_bytes()
    real = folder_paths.get_save_image_path
    monkeypatch.setattr(folder_paths, "get_save_image_path",
                        lambda *a, **k: (*real(*a, **k)[:2], 1, *real(*a, **k)[3:]))
    p["5"]["inputs"]["seed"] = 5
    h = run(p)
    assert saved(h, "10").name == "count_accel_00003_.mp4" and first.read_bytes() == before


def stock_save(images, path: Path) -> Path:
    from fractions import Fraction

    from comfy_api.latest import InputImpl, Types

    video = InputImpl.VideoFromComponents(Types.VideoComponents(images=images, frame_rate=Fraction(FPS)))
    video.save_to(str(path), format=Types.VideoContainer.AUTO, codec=Types.VideoCodec.AUTO)
    return path


def test_tiled_decode_is_encoded_after_it(files, M, mod, tmp_path):
    """An Accel VAE that decodes in tiles hands out pieces, not frames: the stream stops, the decode's output is
    encoded instead (the same frames as VAE Decode (Tiled) gives), and the report says so."""
    vae = M.vae_from_state_dict(M.wan21_vae_state_dict("tiny", seed=0), dtype=torch.float32)
    Opts = mod("accel.vae.options")
    tiled, _ = Opts.apply(vae, Opts.VAEOptions(channels_last=False, tiled=True, tile_size=64, overlap=32))
    lat = {"samples": torch.randn(1, 16, 3, 16, 12, generator=torch.Generator().manual_seed(3))}
    with torch.inference_mode():  # as ComfyUI's executor runs a node
        out = H.call_node("AccelSaveVideo", samples=lat, vae=tiled, fps=FPS, filename_prefix="video/tiled",
                          format="auto", codec="auto", encoder="cpu (as Save Video)")
        ref = tiled.decode(lat["samples"])
    text = out["ui"]["text"][0]
    assert "encoded after the decode, because the decoder ran on pieces" in text, text
    images = out["result"][0]
    assert torch.equal(images, ref.reshape(-1, *ref.shape[-3:]))
    f = read(output_file(out["ui"]["images"][0]))
    assert f["frames"].shape[0] == images.shape[0] == 9
    # against what Save Video writes from these frames (ComfyUI's own VideoFromComponents.save_to)
    src = (images * 255).clamp(0, 255).byte().float()
    assert psnr(f["frames"], src) >= psnr(read(stock_save(images, tmp_path / "stock.mp4"))["frames"], src) - 0.5


def test_streamed_frames_are_the_decode_output(M, mod):
    """accel.vae.stream: the chunks handed out while ComfyUI's decode runs are its output, in order, converted as
    ComfyUI converts it; a batch of two videos is not streamed."""
    S = mod("accel.vae.stream")
    vae = M.vae_from_state_dict(M.wan21_vae_state_dict("tiny", seed=0), dtype=torch.float32)
    z = torch.randn(1, 16, 4, 4, 6, generator=torch.Generator().manual_seed(4))

    class Sink:
        def __init__(self):
            self.chunks, self.why = [], None

        def frames(self, pixels):
            self.chunks.append(pixels)

        def abort(self, reason):
            self.why = reason

    sink = Sink()
    assert S.streamable(vae, z) is None
    with torch.inference_mode(), S.frames_while_decoding(vae, z, sink) as check:
        out = vae.decode(z)
        check(out)
    assert sink.why is None and len(sink.chunks) > 1
    assert torch.equal(torch.cat(sink.chunks), out[0])
    assert "several videos" in S.streamable(vae, z.repeat(2, 1, 1, 1, 1))
    assert not vae.first_stage_model.decoder._forward_hooks


def test_cpu_preset_where_it_applies(mod):
    """cpu_preset sets x264's preset for encoder 'cpu' (H.264) only; 'cpu (as Save Video)' keeps every setting Save
    Video's (medium), AV1 has no x264 preset: each says so in a report line instead of ignoring it silently."""
    E, S = mod("accel.video.encoder"), mod("accel.video.save")
    enc, _ = E.choose("h264", "cpu", "faster")
    assert enc.options == {"preset": "faster"} and "preset faster" in enc.why and enc.threads == "AUTO"
    enc, _ = E.choose("h264", "cpu (as Save Video)", "faster")
    assert enc.options == {} and "preset medium (Save Video's)" in enc.why and enc.threads == "SLICE"
    enc, _ = E.choose("av1", "cpu", "faster")
    assert enc.options == {} and enc.name == "libsvtav1"

    def lines(codec, encoder):
        return S._encoder(S.SaveVideoOptions(encoder=encoder, cpu_preset="faster"), codec)[1]
    assert lines("h264", "cpu") == []
    assert any("not used with encoder 'cpu (as Save Video)'" in x for x in lines("h264", "cpu (as Save Video)"))
    assert any("apply to H.264 only" in x for x in lines("av1", "cpu"))


def test_gpu_encoder_falls_back_or_stops(pack, mod, AccelError):
    """On this machine no NVENC opens (no GPU, or an FFmpeg without it): `gpu` falls back to the CPU with a report
    line; with on_failure error it stops naming `encoder`; the probe says why."""
    E = mod("accel.video.encoder")
    why = E.probe("h264_nvenc")
    assert why and ("does not open" in why or "has no" in why)
    imgs = torch.rand(5, 32, 48, 3, generator=torch.Generator().manual_seed(5))
    out = H.call_node("AccelSaveVideo", images=imgs, fps=8.0, filename_prefix="video/gpu", format="mkv", codec="auto",
                      encoder="gpu")
    text = out["ui"]["text"][0]
    assert "fallback: GPU encoder h264_nvenc" in text and "libx264" in text and out["ui"]["images"][0][
        "filename"].endswith(".mkv")
    with pytest.raises(AccelError, match="input 'encoder'"):
        H.call_node("AccelSaveVideo", images=imgs, fps=8.0, filename_prefix="video/gpu", format="auto", codec="auto",
                    encoder="gpu", on_failure="error")
    f = read(output_file(out["ui"]["images"][0]))
    assert f["format"] == "matroska,webm" and f["frames"].shape[0] == 5


def test_inputs_are_checked(pack, AccelError):
    imgs = torch.rand(3, 32, 32, 3)
    base = dict(fps=8.0, filename_prefix="video/bad", format="auto", codec="auto", encoder="cpu")
    with pytest.raises(AccelError, match="input 'images'"):
        H.call_node("AccelSaveVideo", **base)
    with pytest.raises(AccelError, match="input 'vae'"):
        H.call_node("AccelSaveVideo", samples={"samples": torch.zeros(1, 16, 1, 4, 4)}, **base)
    with pytest.raises(AccelError, match="input 'samples'"):
        H.call_node("AccelSaveVideo", images=imgs, samples={"samples": torch.zeros(1, 16, 1, 4, 4)}, **base)
    with pytest.raises(AccelError, match="input 'codec'"):
        H.call_node("AccelSaveVideo", images=imgs, **{**base, "format": "webm", "codec": "h264"})
    # frames a video cannot hold: named before any file exists (Save Video fails on them inside FFmpeg)
    import folder_paths

    out = Path(folder_paths.get_output_directory()) / "video"
    before = set(out.glob("bad*")) if out.exists() else set()
    for bad in (torch.rand(3, 32, 32, 4), torch.rand(0, 32, 32, 3), torch.rand(32, 32, 3)):
        with pytest.raises(AccelError, match="input 'images'.*RGB"):
            H.call_node("AccelSaveVideo", images=bad, **base)
    with pytest.raises(AccelError, match=r"input 'images'.*63x47: H.264 needs an even.*62x46"):
        H.call_node("AccelSaveVideo", images=torch.rand(3, 47, 63, 3), **base)
    with pytest.raises(AccelError, match="input 'images'.*AV1 needs 4x4"):
        H.call_node("AccelSaveVideo", images=torch.rand(3, 2, 2, 3), **{**base, "codec": "av1"})
    assert (set(out.glob("bad*")) if out.exists() else set()) == before


def test_writer_errors_and_aborts_leave_no_file_and_no_hang(pack, mod, tmp_path):
    """The encoder thread's error reaches the caller (the next frames() or finish() raises it) and the file is
    removed; an abort with a full queue does not block; neither leaves a thread behind."""
    import threading

    W, E = mod("accel.video.writer"), mod("accel.video.encoder")
    enc, _ = E.choose("h264", "cpu", "medium")
    spec = W.StreamSpec("mp4", enc, FPS)

    def bounded(fn):
        t = threading.Thread(target=fn, daemon=True)
        t.start()
        t.join(60)
        assert not t.is_alive(), "the writer hung"

    bad = W.VideoWriter(str(tmp_path / "bad.mp4"), spec, queued_chunks=1)
    caught = []

    def feed_bad():
        try:
            bad.frames(torch.rand(2, 32, 48, 3))
            for _ in range(50):
                bad.frames(torch.rand(2, 16, 16, 3))  # another size: the encoder thread fails
            bad.finish()
        except ValueError as e:
            caught.append(e)
    bounded(feed_bad)
    assert caught and "a frame of 16x16 in a video of 48x32" in str(caught[0])
    bounded(bad.discard)
    assert not (tmp_path / "bad.mp4").exists() and not bad._thread.is_alive()

    cut = W.VideoWriter(str(tmp_path / "cut.mp4"), spec, queued_chunks=1)

    def abort_full():
        for _ in range(3):
            cut.frames(torch.rand(4, 32, 48, 3))
        cut.abort("a test")
        cut.discard()
    bounded(abort_full)
    assert not (tmp_path / "cut.mp4").exists() and not cut._thread.is_alive() and cut.aborted == "a test"
