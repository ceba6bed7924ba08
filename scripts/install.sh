#!/usr/bin/env bash
# `make install` / `make uninstall`: puts chirper-play, its manual page, its bash, zsh and fish completions and
# the demo catalog under PREFIX, and removes exactly those (and the folders they leave empty).
#
#   scripts/install.sh install PREFIX BINARY
#   scripts/install.sh uninstall PREFIX
set -euo pipefail
action=$1
prefix=$2
root=$(cd "$(dirname "$0")/.." && pwd)

# Every file installed, relative to PREFIX.
files() {
    echo bin/chirper-play
    echo share/man/man1/chirper-play.1
    echo share/bash-completion/completions/chirper-play
    echo share/zsh/site-functions/_chirper-play
    echo share/fish/vendor_completions.d/chirper-play.fish
    (cd "$root/assets/demo" && find . -type f | sed 's|^\./|share/chirper-play/demo/|' | sort)
}

case "$action" in
install)
    binary=$3
    [ -x "$binary" ] || { echo "install: no chirper-play at $binary (build it first)" >&2; exit 1; }
    install -Dm755 "$binary" "$prefix/bin/chirper-play"
    manual=$(mktemp)
    trap 'rm -f "$manual"' EXIT
    python3 "$root/scripts/make-manpage.py" "$prefix/bin/chirper-play" "$root/README.md" > "$manual"
    install -Dm644 "$manual" "$prefix/share/man/man1/chirper-play.1"
    for shell in bash zsh fish; do
        case $shell in
        bash) target=share/bash-completion/completions/chirper-play ;;
        zsh) target=share/zsh/site-functions/_chirper-play ;;
        fish) target=share/fish/vendor_completions.d/chirper-play.fish ;;
        esac
        "$prefix/bin/chirper-play" --generate-completion-script "$shell" > "$manual"
        install -Dm644 "$manual" "$prefix/$target"
    done
    (cd "$root/assets/demo" && find . -type f) | while read -r file; do
        install -Dm644 "$root/assets/demo/$file" "$prefix/share/chirper-play/demo/${file#./}"
    done
    echo "installed chirper-play in $prefix (man chirper-play; completions for bash, zsh and fish)"
    ;;
uninstall)
    files | while read -r file; do
        rm -f "$prefix/$file"
        # The folders this left empty, up to (not including) PREFIX.
        folder=$(dirname "$prefix/$file")
        while [ "$folder" != "$prefix" ] && [ "${folder#"$prefix"/}" != "$folder" ] && rmdir "$folder" 2>/dev/null; do
            folder=$(dirname "$folder")
        done
    done
    echo "removed chirper-play from $prefix"
    ;;
*)
    echo "usage: $0 install PREFIX BINARY | uninstall PREFIX" >&2
    exit 2
    ;;
esac
