#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need. Safe to re-run.
# Called by the Makefile when a tool is missing, and by .ci/run.
set -euo pipefail

packages=(
  make
  gcc
  gcc-riscv64-unknown-elf
  clang
  libclang-rt-14-dev
  lld
  binutils-riscv64-unknown-elf
  qemu-system-misc
  opensbi
  gdb-multiarch
  python3
  zlib1g-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing with apt-get: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
