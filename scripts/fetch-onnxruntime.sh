#!/usr/bin/env bash
# Fetches ONNX Runtime, pinned by version and SHA-256, never committed:
#   fetch-onnxruntime.sh header   ONNX Runtime's C API header, from Debian 13's libonnxruntime-dev (the build needs
#                                 it), into Sources/COnnxRuntime/onnxruntime/ (gitignored).
#   fetch-onnxruntime.sh library  libonnxruntime.so from PyPI's onnxruntime wheel (what `identify` loads with
#                                 dlopen), with its licence, into $XDG_DATA_HOME/chirper-play/onnxruntime/VERSION/.
# Each is cached: nothing is downloaded when the file is there with its pinned hash.
# The .deb is fetched with `apt-get download` against a private apt configuration (its own sources list naming
# Debian 13, its own lists and cache, an empty dpkg status), so the system's apt state is neither read nor changed.
set -euo pipefail

ORT_VERSION=1.32.0
# Any CPython tag of the wheel holds the same library; this one is the one Debian 12's python3 would pick.
WHEEL_URL=https://files.pythonhosted.org/packages/1d/46/e6f356c9539d2eed44126de3421a81e217da2ad91b22dc11b379cb1e384f/onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl
WHEEL_SHA256=5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d
LIBRARY=libonnxruntime.so.$ORT_VERSION
LIBRARY_SHA256=6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f

DEB_PACKAGE=libonnxruntime-dev
DEB_VERSION=1.21.0+dfsg-1
DEB_SHA256=14f7d959d5deacbcf1504830d4189f91fc67382b399ed9ae9d3aa9c4050ced08
DEB_SUITE=trixie
DEB_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
HEADER_SHA256=7783e9664bdb0b1b36145b5c8587dd1bc9a399aa000edf2e3dd03003cafc6882

root=$(cd "$(dirname "$0")/.." && pwd)
data=${XDG_DATA_HOME:-}
[[ "$data" == /* ]] || data="$HOME/.local/share"
cache=${XDG_CACHE_HOME:-}
[[ "$cache" == /* ]] || cache="$HOME/.cache"

matches() { [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]; }

check() {
    local actual
    actual=$(sha256sum "$1" | cut -d' ' -f1)
    if [[ "$actual" != "$2" ]]; then
        echo "error: $1 has SHA-256 $actual, not the pinned $2; delete it and retry" >&2
        exit 1
    fi
}

header() {
    local target="$root/Sources/COnnxRuntime/onnxruntime"
    matches "$target/onnxruntime_c_api.h" "$HEADER_SHA256" && return 0
    local work="$cache/chirper-play/apt-$DEB_SUITE"
    mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/sources.list.d" "$work/preferences.d"
    : >"$work/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEB_MIRROR $DEB_SUITE main" \
        >"$work/sources.list"
    local options=(
        -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/sources.list.d"
        -o "Dir::Etc::Preferences=$work/preferences" -o "Dir::Etc::PreferencesParts=$work/preferences.d"
        -o "Dir::State::Lists=$work/lists" -o "Dir::State::status=$work/status" -o "Dir::Cache=$work"
        -o "Dir::Cache::archives=$work/archives" -o "APT::Update::Post-Invoke-Success::=" -o "Debug::NoLocking=1"
        -o "APT::Sandbox::User=root"
    )
    local deb="$work/${DEB_PACKAGE}_${DEB_VERSION}_amd64.deb"
    if ! matches "$deb" "$DEB_SHA256"; then
        echo "Fetching $DEB_PACKAGE $DEB_VERSION (Debian $DEB_SUITE) for ONNX Runtime's C API header"
        apt-get "${options[@]}" -qq update
        (cd "$work" && apt-get "${options[@]}" -qq download "$DEB_PACKAGE=$DEB_VERSION")
        mv "$work/${DEB_PACKAGE}_${DEB_VERSION//:/%3a}_amd64.deb" "$deb" 2>/dev/null || true
        check "$deb" "$DEB_SHA256"
    fi
    local unpacked="$work/unpacked"
    rm -rf "$unpacked"
    dpkg-deb -x "$deb" "$unpacked"
    mkdir -p "$target"
    check "$unpacked/usr/include/onnxruntime/onnxruntime_c_api.h" "$HEADER_SHA256"
    cp "$unpacked/usr/include/onnxruntime/onnxruntime_c_api.h" "$target/"
    cp "$unpacked/usr/share/doc/$DEB_PACKAGE/copyright" "$target/copyright"
    rm -rf "$unpacked"
}

library() {
    local target="$data/chirper-play/onnxruntime/$ORT_VERSION"
    matches "$target/$LIBRARY" "$LIBRARY_SHA256" && [[ -f "$target/LICENSE" ]] && return 0
    local work="$cache/chirper-play/onnxruntime"
    local wheel="$work/$(basename "$WHEEL_URL")"
    mkdir -p "$work" "$target"
    if ! matches "$wheel" "$WHEEL_SHA256"; then
        echo "Fetching ONNX Runtime $ORT_VERSION (PyPI's onnxruntime wheel, MIT)"
        curl -fsSL --retry 3 -o "$wheel.part" "$WHEEL_URL"
        check "$wheel.part" "$WHEEL_SHA256"
        mv "$wheel.part" "$wheel"
    fi
    python3 - "$wheel" "$target" "$LIBRARY" <<'EOF'
import os, shutil, sys, zipfile
wheel, target, library = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    for inside, name in ((f"onnxruntime/capi/{library}", library), ("onnxruntime/LICENSE", "LICENSE")):
        with archive.open(inside) as source, open(os.path.join(target, name + ".part"), "wb") as out:
            shutil.copyfileobj(source, out)
        os.replace(os.path.join(target, name + ".part"), os.path.join(target, name))
os.chmod(os.path.join(target, library), 0o755)
EOF
    check "$target/$LIBRARY" "$LIBRARY_SHA256"
    # The SONAME, so that a loader asking for it by name finds it beside.
    ln -sfn "$LIBRARY" "$target/libonnxruntime.so.1"
    # The wheel is kept only while it is needed: the library is what stays.
    rm -f "$wheel"
}

case "${1:-}" in
    header) header ;;
    library) library ;;
    *)
        echo "usage: $0 header|library" >&2
        exit 2
        ;;
esac
