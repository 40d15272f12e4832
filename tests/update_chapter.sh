#!/usr/bin/env bash
# Rewrites the output blocks of a chapter from what its program prints now:
#   tests/update_chapter.sh tutorials/05_recurrent_cells        # <!-- output: ARGS --> blocks
#   tests/update_chapter.sh --full tutorials/06_seq2seq         # also <!-- output-full: ARGS -->
# For after a change that moves the numbers (a new kernel rounds differently). It only copies
# output: read the diff, and mend any prose that cites a number that moved.
set -euo pipefail
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
dir=${1:?usage: tests/update_chapter.sh [--full] tutorials/NN_topic}
nn=$(basename "$dir" | cut -c1-2)
bin="build/tutorial-$nn"
make -s "$bin"
tmp=$(mktemp)
awk -v bin="$bin" -v full="$full" '
  function marker(line,   m) {
    if (match(line, /^<!-- output: ?.*-->$/) || (full && match(line, /^<!-- output-full: ?.*-->$/))) {
      m = line; sub(/^<!-- output(-full)?: ?/, "", m); sub(/ ?-->$/, "", m); return m " "
    }
    return ""
  }
  pending != "" && /^```/ {
    print; cmd = bin " " pending
    while ((cmd | getline out) > 0) print out
    if (close(cmd) != 0) { print "update_chapter: " cmd " failed" > "/dev/stderr"; exit 1 }
    skipping = 1; pending = ""; next
  }
  skipping { if (/^```/) { print; skipping = 0 } ; next }
  { pending = marker($0); print }
' "$dir/README.md" > "$tmp"
mv "$tmp" "$dir/README.md"
git --no-pager diff --stat -- "$dir/README.md" || true
