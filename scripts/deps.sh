#!/usr/bin/env bash
# Installs what strobe needs to build and test, from Debian's packages.
# Idempotent: installs only what is missing; works as root or through sudo.
# Usage: scripts/deps.sh [build|test|bench|package]   (default: test)
set -euo pipefail

what=${1:-test}

build_pkgs=(
  build-essential cmake ninja-build pkg-config
  libelf-dev libdw-dev libsqlite3-dev libfmt-dev libcli11-dev zlib1g-dev libdeflate-dev libzstd-dev libdebuginfod-dev
  libiberty-dev
  liblzma-dev libbz2-dev  # archives libdw.a needs: strobe links libdw in (CMakeLists.txt)
  libprotozero-dev rapidjson-dev libcpp-httplib-dev libncurses-dev
  googletest libgtest-dev libgmock-dev binutils
  libc6-dbg  # names libc's internal functions (start_thread, clone3, ...) in profiles
  help2man go-md2man  # the man pages, generated from --help and docs/ (packaging/)
  libcapstone-dev  # disassembly for strobe annotate (x86-64, aarch64)
  libbpf-dev bpftool clang  # the BPF engine: its program (clang -target bpf), skeleton, loader (src/bpf)
)
# What only the test run needs: real consumers of the outputs (Google's
# pprof built from Debian's sources, Chromium, xmllint).
test_pkgs=(
  libxml2-utils golang-go golang-github-google-pprof-dev chromium nodejs
  linux-perf  # perf inject --jit: the names and share the JIT test compares with (nodejs: node --perf-prof)
  python3  # python3: a loopback HTTP server stands in for debuginfod
  clang    # clang: a second producer's DWARF for the symbolizer's tests
  clang-16 libclang-rt-16-dev  # the sanitized build (ASan, UBSan) and libFuzzer for fuzz/
  llvm-16  # llvm-symbolizer-16: names the frames of that build's sanitizer reports
  dpkg-dev lintian man-db  # the package test: builds the .deb, checks it, renders the man pages
  linux-perf)  # perf annotate: the independent check of strobe annotate's shares
bench_pkgs=(hyperfine elfutils llvm google-perftools libgoogle-perftools4 sqlite3 valgrind
  libbenchmark-dev)

# Debian's nodejs comes without npm (NodeSource's includes it).
command -v npm >/dev/null 2>&1 || test_pkgs+=(npm)

pkgs=("${build_pkgs[@]}")
case "$what" in
  build) ;;
  test) pkgs+=("${test_pkgs[@]}") ;;
  bench) pkgs+=("${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
  package) pkgs+=(dpkg-dev lintian) ;;
  *) echo "usage: scripts/deps.sh [build|test|bench|package]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "strobe: error: missing packages: ${missing[*]}" >&2
    echo "  hint: run as root, or install them: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

echo "strobe: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq -o DPkg::Lock::Timeout=900
"${sudo[@]}" apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=900 "${missing[@]}" >/dev/null
