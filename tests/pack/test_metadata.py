"""The Comfy Registry metadata in pyproject.toml and the LICENSE it names, read the way comfy-cli reads them
(comfy_cli/registry/config_parser.py: `extract_node_configuration`): the node id the Registry's guidance recommends,
the classifiers it turns into supported operating systems and accelerators, `[tool.comfy] requires-comfyui` in the
version form it accepts, the URLs it reads. `comfy node validate` itself runs in tests/pack/test_packaging.py."""
import re
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]
META = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT, COMFY = META["project"], META["tool"]["comfy"]

# The Registry's own vocabulary (comfy-cli's validate_and_extract_*_classifiers; anything else drops the field).
OS_PREFIXES = ("Microsoft", "POSIX", "MacOS", "OS Independent")
ACCELERATORS = {"GPU :: NVIDIA CUDA", "GPU :: AMD ROCm", "GPU :: Intel Arc", "NPU :: Huawei Ascend",
                "GPU :: Apple Metal"}
VERSION_PART = re.compile(r"^(?:(==|>=|<=|!=|~=|>|<|<>|=)\s*)?(\d+\.\d+\.\d+(?:-[a-zA-Z0-9]+)?)?$")


def test_license_file_is_the_gpl_the_metadata_names():
    text = (REPO / "LICENSE").read_text()
    assert text.lstrip().startswith("GNU GENERAL PUBLIC LICENSE") and "Version 3, 29 June 2007" in text
    assert PROJECT["license"] == {"text": "GPL-3.0-or-later"}
    assert "License :: OSI Approved :: GNU General Public License v3 or later (GPLv3+)" in PROJECT["classifiers"]


def test_node_id_follows_the_registry_rules():
    name = PROJECT["name"]
    assert len(name) < 100 and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*", name), name
    assert "comfy" not in name.lower(), "the Registry's guidance: no ComfyUI in the node id"


def test_classifiers_name_what_the_registry_reads():
    oses = [c.removeprefix("Operating System :: ") for c in PROJECT["classifiers"] if c.startswith("Operating System")]
    accelerators = [c.removeprefix("Environment :: ") for c in PROJECT["classifiers"] if c.startswith("Environment")]
    assert oses and all(o.startswith(OS_PREFIXES) for o in oses), oses
    assert accelerators and set(accelerators) <= ACCELERATORS, accelerators


def test_supported_comfyui_versions_in_the_registry_form():
    spec = COMFY["requires-comfyui"]
    assert all(VERSION_PART.match(part.strip()) for part in spec.split(",")), spec
    assert spec.startswith(">=0.3.75"), "the oldest ComfyUI the test suite runs on is 0.3.75"


def test_urls_and_display_name():
    for key in ("Repository", "Issues", "Documentation"):
        assert PROJECT["urls"][key].startswith("https://"), key
    assert COMFY["PublisherId"] and COMFY["DisplayName"] and COMFY["Icon"].startswith("https://")
