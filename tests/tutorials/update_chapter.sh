#!/usr/bin/env bash
# Rewrites the output blocks of a chapter from what its program prints now:
#   tests/tutorials/update_chapter.sh tutorials/05_recurrent_cells        # <!-- output: ARGS --> blocks
#   tests/tutorials/update_chapter.sh --full tutorials/06_seq2seq         # also <!-- output-full: ARGS -->
# For after a change that moves the numbers (a new kernel rounds differently). It only copies
# output: read the diff, and mend any prose that cites a number that moved. Several blocks under
# the same marker are one output shown in pieces; each piece after the first starts again at the
# line it starts with now (a section heading, say).
set -euo pipefail
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
dir=${1:?usage: tests/tutorials/update_chapter.sh [--full] tutorials/NN_topic}
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
  # First pass: for every marker, the first line of each of its blocks. Blocks under the same
  # marker are one output shown in pieces; block k > 1 starts again at the line it starts with now.
  FNR == NR {
    if (want != "" && /^```/) { n[want]++; grab = 1; key = want; want = ""; next }
    if (grab) { first[key, n[key]] = $0; grab = 0 }
    m = marker($0); if (m != "") want = m
    next
  }
  pending != "" && /^```/ {
    print
    if (!(pending in done)) {
      cmd = bin " " pending; k = 1; lines = 0
      while ((cmd | getline out) > 0) {
        if (k < n[pending] && out == first[pending, k + 1]) k++
        piece[pending, k] = piece[pending, k] out "\n"; lines++
      }
      if (close(cmd) != 0) { print "update_chapter: " cmd " failed" > "/dev/stderr"; exit 1 }
      if (k != n[pending]) {
        print "update_chapter: " cmd ": no line starts block " k + 1 " of " n[pending] " any more (\"" \
              first[pending, k + 1] "\"); split it by hand" > "/dev/stderr"; exit 1
      }
      done[pending] = 0
    }
    printf "%s", piece[pending, ++done[pending]]
    skipping = 1; pending = ""; next
  }
  skipping { if (/^```/) { print; skipping = 0 } ; next }
  { pending = marker($0); print }
' "$dir/README.md" "$dir/README.md" > "$tmp"
mv "$tmp" "$dir/README.md"
git --no-pager diff --stat -- "$dir/README.md" || true
