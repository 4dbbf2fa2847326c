#!/usr/bin/env bash
# Packs a built `cargo-isobench` into the archive a release carries for one target:
#   cargo-isobench-TARGET.tgz (zip on Windows), holding the folder cargo-isobench-TARGET/
#   with the binary, the README and both licence files.
# `cargo binstall` finds the same archive through `[package.metadata.binstall]` in
# cargo-isobench/Cargo.toml; tests/tests/publishing.rs packs the host's binary with this
# script and checks that the binary sits where that metadata says.
#
# usage: package-binary.sh TARGET BINARY OUT_DIR
set -euo pipefail
target="$1" binary="$2" out="$3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
name="cargo-isobench-$target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/$name"
case "$target" in
  *windows*) exe=.exe ;;
  *) exe= ;;
esac
cp "$binary" "$work/$name/cargo-isobench$exe"
cp "$root/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$work/$name/"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
case "$target" in
  *windows*) (cd "$work" && 7z a -tzip "$out/$name.zip" "$name" >/dev/null) ;;
  *) tar -C "$work" -czf "$out/$name.tgz" "$name" ;;
esac
