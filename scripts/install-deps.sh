#!/usr/bin/env bash
# Checks that the tools a goal needs are on this host; on a Debian-like host
# (Debian, Ubuntu) installs the packages of those missing with apt-get, and
# says which; on any other host lists what is missing and its packages, and
# fails. Installs nothing when nothing is missing. Safe to re-run.
#
#   scripts/install-deps.sh [build|run|debug|test]    (default: test)
#
#   build  the cross compiler ($CC), the host compiler ($HOSTCC) and zlib
#   run    and QEMU ($QEMU) with its bundled firmware (-bios default)
#   debug  and a RISC-V GDB ($GDB)
#   test   and what make test uses: clang, ld.lld, the libFuzzer runtime,
#          qemu-i386 and the i386 C and C++ libraries (the 32-bit fuzz
#          target), python3, Debian's OpenSBI images (on Debian, every
#          package below)
#
# The Makefile runs it before a build with the tools it chose (CC, HOSTCC,
# QEMU, GDB, PYTHON in the environment); .ci/run runs it for make test.
set -euo pipefail

level=${1:-test}
by_hand=$([ $# -eq 0 ] && echo yes || echo no) # the Makefile names a goal: quiet then
case $level in
build | run | debug | test) ;;
*)
  echo "usage: $0 [build|run|debug|test]" >&2
  exit 2
  ;;
esac
cc=${CC:-${CROSS_COMPILE:-riscv64-unknown-elf-}gcc}
hostcc=${HOSTCC:-gcc}
qemu=${QEMU:-qemu-system-riscv64}
gdb=${GDB:-gdb-multiarch}
python=${PYTHON:-/usr/bin/python3}
opensbi_elf=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.elf

# Every package make test needs on Debian 12 (.ci/run installs them all),
# but the libFuzzer runtime's, named after clang's version (fuzzer_package).
debian_packages=(make gcc gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf clang lld
  qemu-system-misc opensbi gdb-multiarch python3 zlib1g-dev
  qemu-user libc6-dev-i386 lib32gcc-12-dev lib32stdc++-12-dev)

# missing: what is missing, and the variable that names it; debian: the
# Debian packages that provide them; unpackaged: what Debian has no package
# of under that name (CC=nonexistent).
missing=()
debian=()
unpackaged=()
need() { # need DESCRIPTION DEBIAN-PACKAGE... (bash 3.2 too: macOS's)
  missing+=("$1")
  if [ $# -eq 1 ]; then
    unpackaged+=("$1")
  else
    shift
    debian+=("$@")
  fi
}
on_path() { command -v "$1" >/dev/null 2>&1; }

# QEMU's firmware for -bios default, in one of its data directories (the
# Makefile names another in QEMU_BIOS: rv32's, which it fetches itself).
firmware_name="opensbi-${qemu##*-}-generic-fw_dynamic.bin"
firmware_found() {
  local dir
  dir=$(dirname "$(command -v "$qemu")")/../share/qemu
  [ -f "$dir/$firmware_name" ] && return 0
  while read -r dir; do
    [ -f "$dir/$firmware_name" ] && return 0
  done < <("$qemu" -L help 2>/dev/null)
  return 1
}

# The Debian packages of a tool named NAME (none: Debian has no such name).
packages_of() {
  case ${1##*/} in
  riscv64-unknown-elf-gcc) echo gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf ;;
  riscv64-linux-gnu-gcc) echo gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu ;;
  clang) echo clang lld ;;
  gcc | cc) echo gcc ;;
  qemu-system-riscv64 | qemu-system-riscv32) echo qemu-system-misc ;;
  gdb-multiarch) echo gdb-multiarch ;;
  esac
}

# libFuzzer's runtime (make test's fuzzers): Debian packages it apart from
# clang, named after clang's major version (14 on Debian 12).
fuzzer_runtime_found() {
  [ -n "$(find "$(clang -print-resource-dir)" -name 'libclang_rt.fuzzer*.a' 2>/dev/null)" ]
}
fuzzer_package() {
  echo "libclang-rt-$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p;q')-dev"
}

# fuzz_walk_auto_32 (tests/fuzz/fuzz.mk): clang -m32 links it with the i386
# C library, libgcc and libstdc++ (libFuzzer is C++), the packages of the
# GCC that clang finds (12 on Debian 12), and it runs under qemu-i386.
# libstdc++'s package depends on libgcc's.
i386_libraries_found() {
  local file
  for file in crt1.o libstdc++.so; do
    [ "$(clang -m32 -print-file-name=$file)" != $file ] || return 1
  done
}
i386_packages() {
  local gcc_major
  gcc_major=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
  echo "libc6-dev-i386 lib32gcc-${gcc_major:-12}-dev lib32stdc++-${gcc_major:-12}-dev"
}

# shellcheck disable=SC2046 # package lists split on spaces
{
  on_path "$cc" || need "the RISC-V C compiler: CC=$cc" $(packages_of "$cc")
  if [ "${cc##*/}" = clang ]; then on_path ld.lld || need "ld.lld (CC=clang links with it)" lld; fi
  on_path "$hostcc" || need "the host C compiler: HOSTCC=$hostcc" $(packages_of "$hostcc")
  if on_path "$hostcc" && ! echo '#include <zlib.h>' | "$hostcc" -E -x c - >/dev/null 2>&1; then
    need "zlib's header zlib.h (symgen reads compressed debugging sections)" zlib1g-dev
  fi
  if [ "$level" != build ]; then
    if ! on_path "$qemu"; then
      need "QEMU: QEMU=$qemu" $(packages_of "$qemu")
    elif [ "${QEMU_BIOS:-default}" = default ] && ! firmware_found; then
      need "QEMU's bundled OpenSBI for -bios default ($firmware_name)" qemu-system-data
    fi
  fi
  if [ "$level" = debug ] || [ "$level" = test ]; then
    on_path "$gdb" || need "a RISC-V GDB: GDB=$gdb (gdb-multiarch or riscv64-*-gdb)" \
      $(packages_of "$gdb")
  fi
}
if [ "$level" = test ]; then
  on_path clang || need "clang (clang kernels, the fuzzers)" clang
  on_path ld.lld || need "ld.lld (clang kernels)" lld
  if on_path clang && ! fuzzer_runtime_found; then
    need "libFuzzer's runtime (make test's fuzzers)" "$(fuzzer_package)"
  fi
  if on_path clang && ! i386_libraries_found; then
    # shellcheck disable=SC2046 # a package list
    need "the i386 C and C++ libraries (clang -m32 links the 32-bit fuzz target)" $(i386_packages)
  fi
  on_path qemu-i386 || need "qemu-i386 (runs the 32-bit fuzz target)" qemu-user
  on_path "$python" || need "Python 3: PYTHON=$python" python3
  [ -f "$opensbi_elf" ] || need "Debian's OpenSBI images (the tests read $opensbi_elf)" opensbi
fi

debian_like=no
if [ -f /etc/debian_version ] && on_path apt-get && on_path dpkg-query; then debian_like=yes; fi
# On Debian, make test wants every package of the list (the tests compare
# against the versions Debian 12 ships), whatever is on PATH.
if [ "$debian_like" = yes ] && [ "$level" = test ]; then
  for package in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
      need "the package $package" "$package"
  done
fi

if [ ${#missing[@]} -eq 0 ]; then
  if [ "$by_hand" = yes ]; then echo "install-deps: make test has every tool it needs"; fi
  exit 0
fi

what=$([ "$level" = build ] && echo "the build" || echo "make $level")
echo "install-deps: missing for $what:"
printf '  %s\n' "${missing[@]}"
if [ "$debian_like" = no ]; then
  cat >&2 <<'EOF'
install-deps: not a Debian-like host, so nothing is installed. Install them
with your package manager (docs/building.md, "Hosts"; untested names), e.g.
  Fedora: dnf install make gcc zlib-devel gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu qemu-system-riscv gdb
  Arch:   pacman -S make gcc zlib riscv64-elf-gcc riscv64-elf-binutils riscv64-elf-gdb qemu-system-riscv qemu-system-riscv-firmware
  macOS:  brew install riscv64-elf-gcc riscv64-elf-gdb qemu
or name the tools you have: make CROSS_COMPILE=riscv64-elf- QEMU=... GDB=...
EOF
  exit 1
fi
if [ ${#unpackaged[@]} -ne 0 ]; then
  echo "install-deps: Debian has no package of these names; install them, or leave the" \
    "variable unset for the default:" >&2
  printf '  %s\n' "${unpackaged[@]}" >&2
  exit 1
fi

mapfile -t packages < <(printf '%s\n' "${debian[@]}" | sort -u)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing with apt-get: ${packages[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${packages[@]}"
# clang's version names the libFuzzer runtime's package: known once clang is.
if [ "$level" = test ] && ! fuzzer_runtime_found; then
  echo "install-deps: installing with apt-get: $(fuzzer_package)"
  $sudo apt-get install -y -q --no-install-recommends "$(fuzzer_package)"
fi
