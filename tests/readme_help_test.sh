#!/usr/bin/env bash
# The README's help block (between <!-- help:begin --> and <!-- help:end -->) is exactly what `infoflow-verify --help`
# prints. usage: readme_help_test.sh PATH/TO/infoflow-verify README.md
set -uo pipefail
cli="$1"; readme="$2"
expected=$(awk '/<!-- help:begin -->/ { inside = 1; next } /<!-- help:end -->/ { inside = 0 } inside' "$readme" | sed '1d;$d')
actual=$("$cli" --help)
if [[ "$expected" == "$actual" ]]; then
  echo "README's help block matches --help"
  exit 0
fi
echo "FAIL: README's help block differs from \`infoflow-verify --help\` (update README.md):"
diff <(echo "$expected") <(echo "$actual")
exit 1
