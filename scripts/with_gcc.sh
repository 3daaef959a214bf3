#!/usr/bin/env bash
# with_gcc.sh COMPILER ARGS...: runs GCC's driver (g++ for clang++, gcc for
# clang) on a compile or link command CMake wrote for clang. In a clang
# build (the sanitized build of `make test`), the programs the tests
# profile and symbolize are still built as Debian builds programs, with GCC:
# the tests check names, inlining and unwind information GCC emits.
# strobe_unsanitized() sets it as the target's compiler and linker launcher.
set -euo pipefail
compiler=$1
shift
case $(basename "$compiler") in
  clang++*) gcc=g++ ;;
  clang*) gcc=gcc ;;
  *) exec "$compiler" "$@" ;;
esac
args=()
for a in "$@"; do
  case $a in
    -gline-tables-only) args+=(-g1) ;;                      # clang's name for GCC's -g1
    -fcolor-diagnostics | -fno-color-diagnostics) ;;        # GCC spells these otherwise
    *) args+=("$a") ;;
  esac
done
exec "$gcc" "${args[@]}"
