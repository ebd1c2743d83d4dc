#!/usr/bin/env bash
# Every script answers --help (and -h) with its usage and exit 0, without setting up, building or running anything:
# the scripts are run from a copy of scripts/ alone, where any of those would fail.
set -uo pipefail
src="$1/scripts"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/scripts"
fail=0
for script in "$tmp"/scripts/*; do
  [[ -f "$script" && -x "$script" && "$script" != *.py ]] || continue
  for flag in --help -h; do
    out=$("$script" "$flag" 2>&1)
    rc=$?
    if [[ $rc -ne 0 || -z "$out" || "$out" != *"scripts/"* && "$out" != *"Usage"* && $(wc -l <<<"$out") -lt 2 ]]; then
      echo "FAIL: $(basename "$script") $flag exited $rc with: ${out:0:200}"
      fail=1
    fi
  done
  # Nothing was created beside the scripts (no build/, no output folder).
  if [[ $(ls "$tmp") != "scripts" ]]; then
    echo "FAIL: $(basename "$script") --help created: $(ls "$tmp")"
    fail=1
  fi
done
[[ $fail -eq 0 ]] && echo "every script answers --help without side effects"
exit $fail
