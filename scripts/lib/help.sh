# Sourced by the scripts: `--help` or `-h` anywhere in the arguments prints the script's header comment (its usage)
# and exits 0, before the script sets up, builds or runs anything.
if [[ " $* " == *" --help "* || " $* " == *" -h "* ]]; then
  # The comment block after the shebang, without its leading "# ".
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
  exit 0
fi
