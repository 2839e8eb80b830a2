#!/usr/bin/env bash
# Regenerate driver/animation/CozmoAnim/ (Python FlatBuffers accessors and builders) from the
# checked-in schema driver/animation/cozmo_anim.fbs.
#
# Run from anywhere:   tools/regen_flatbuffers.sh           (rewrites driver/animation/CozmoAnim/)
#                      tools/regen_flatbuffers.sh --check   (exit 1 if the checked-in code is stale)
# Needs:               flatc (Debian/Ubuntu: apt-get install flatbuffers-compiler; tested with 2.0.8)
#
# flatc writes imports such as `from CozmoAnim.AnimClip import AnimClip`, which only work when the
# generated directory itself is on sys.path. The project imports the code as the sub-package
# `driver.animation.CozmoAnim`, so this script rewrites those imports into package-relative ones
# (`from .AnimClip import AnimClip`). The generated files are checked in (and excluded from ruff in
# pyproject.toml), so users do not need flatc; rerun this script only after editing the schema.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
schema="$repo/driver/animation/cozmo_anim.fbs"
out_parent="$repo/driver/animation"
out_dir="$out_parent/CozmoAnim"

command -v flatc >/dev/null || { echo "flatc not found: apt-get install flatbuffers-compiler" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

flatc --python --no-warnings -o "$tmp" "$schema"

# Package-relative imports, so the code works as driver.animation.CozmoAnim.
sed -i -E 's/^([[:space:]]*)from CozmoAnim\.([A-Za-z0-9_]+) import /\1from .\2 import /' "$tmp"/CozmoAnim/*.py

if [[ "${1:-}" == "--check" ]]; then
  if diff -r -x __pycache__ "$tmp/CozmoAnim" "$out_dir" >/dev/null; then
    echo "driver/animation/CozmoAnim is up to date with cozmo_anim.fbs"
    exit 0
  fi
  echo "driver/animation/CozmoAnim differs from what flatc generates: run tools/regen_flatbuffers.sh" >&2
  exit 1
fi

rm -rf "$out_dir"
mv "$tmp/CozmoAnim" "$out_dir"
echo "regenerated $(ls "$out_dir" | wc -l) files in ${out_dir#"$repo"/} with $(flatc --version)"
