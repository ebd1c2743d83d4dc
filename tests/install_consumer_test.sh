#!/usr/bin/env bash
# Installs the build into a fresh prefix and builds a consumer project against it with find_package
# (tests/install_consumer), then runs it; checks the installed executables and the pkg-config file too.
# usage: install_consumer_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || fail "cmake --install"
[[ -f "$tmp/prefix/include/infoflow/numerics/model/forward.hpp" ]] || fail "headers not under include/infoflow/"
[[ -f "$tmp/prefix/lib/cmake/infoflow_verify/infoflow_verifyConfigVersion.cmake" ]] || fail "no version file"
"$tmp/prefix/bin/infoflow-verify" --version | grep -qE "^infoflow-verify [0-9]+\.[0-9]+\.[0-9]+ " || fail "installed infoflow-verify --version"
cmake -S "$src/tests/install_consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "the consumer does not configure"; }
cmake --build "$tmp/consumer" -j 2 >"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "the consumer does not build"; }
out=$("$tmp/consumer/consumer") || fail "the consumer exits $?"
grep -q "dilution bound at T = 8, eps = 0.1: 3.200000" <<<"$out" || fail "unexpected output: $out"
grep -q "arb contains it: yes" <<<"$out" || fail "unexpected output: $out"
# The .pc file is relocatable: its include directory is the installed one, wherever the prefix is.
include_dir=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags-only-I infoflow_verify | tr ' ' '\n' | grep -m1 "infoflow$" | sed 's/^-I//')
[[ -f "$include_dir/numerics/model/forward.hpp" ]] || fail "pkg-config --cflags infoflow_verify points at '$include_dir'"
# Used from a parent project (add_subdirectory, as FetchContent does): the parent's build type is left alone and the
# namespaced targets exist. Configure only.
mkdir -p "$tmp/parent"
cat >"$tmp/parent/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES CXX)
add_subdirectory("$src" infoflow)
if(NOT TARGET infoflow::numerics)
  message(FATAL_ERROR "no infoflow::numerics")
endif()
CMAKE
cmake -S "$tmp/parent" -B "$tmp/parent-build" >"$tmp/parent.log" 2>&1 || { tail -20 "$tmp/parent.log"; fail "a parent cannot add_subdirectory it"; }
grep -q "^CMAKE_BUILD_TYPE:STRING=$" "$tmp/parent-build/CMakeCache.txt" || fail "the subproject set the parent's build type: $(grep ^CMAKE_BUILD_TYPE "$tmp/parent-build/CMakeCache.txt")"
echo "installed, found with find_package, built and ran: $out"
