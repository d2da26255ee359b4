#!/usr/bin/env bash
# Fetches a riscv32 OpenSBI (fw_dynamic.bin) for qemu-system-riscv32 where
# QEMU bundles none (QEMU 7.2, Debian 12's): Debian's bookworm-backports
# suite has opensbi 1.5.1 with /usr/lib/riscv32-linux-gnu/opensbi/. The
# package is downloaded with apt-get into a private directory and unpacked
# there: nothing is installed, the system's apt sources are not changed, and
# no root is needed. Writes OUTPUT (a fw_dynamic.bin), or fails and says why.
#
#   scripts/fetch-opensbi-rv32.sh OUTPUT
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTPUT" >&2
  exit 2
fi
output=$1
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
  cat >&2 <<'EOF'
fetch-opensbi-rv32: qemu-system-riscv32 has no bundled OpenSBI here, and this is
not a Debian-like host to fetch one from. Give a riscv32 fw_dynamic.bin:
  make XLEN=32 QEMU_BIOS=/path/to/fw_dynamic.bin ...
(your distribution's opensbi package, or a QEMU that bundles
opensbi-riscv32-generic-fw_dynamic.bin, which make then uses by itself)
EOF
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/opensbi-rv32.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb http://deb.debian.org/debian bookworm-backports main" >"$work/sources.list"
apt_options=(-q -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
echo "fetch-opensbi-rv32: downloading opensbi from Debian's bookworm-backports" \
  "(unpacked into $(dirname "$output"), not installed)"
apt-get "${apt_options[@]}" update >"$work/log" 2>&1 || {
  cat "$work/log" >&2
  exit 1
}
(cd "$work" && apt-get "${apt_options[@]}" download opensbi/bookworm-backports) \
  >>"$work/log" 2>&1 || {
  cat "$work/log" >&2
  exit 1
}
dpkg-deb -x "$work"/opensbi_*.deb "$work/root"
firmware=$work/root/usr/lib/riscv32-linux-gnu/opensbi/generic/fw_dynamic.bin
if [ ! -f "$firmware" ]; then
  echo "fetch-opensbi-rv32: the package has no $firmware" >&2
  exit 1
fi
mkdir -p "$(dirname "$output")"
cp "$firmware" "$output.tmp.$$"
mv "$output.tmp.$$" "$output"
