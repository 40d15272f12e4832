# The quick output blocks of a chapter's README.md, as make test reads them (tests/support/chapter_check.h):
# a fenced block right after a line `<!-- output: ARGS -->` is what `tutorial-NN ARGS` prints, and
# blocks under the same marker are one output shown in pieces, joined in order. Prints each
# output as a line "@@ARGS" followed by its lines, in the order the markers first appear.
# (make yours-test, exercises/yours/yours.sh, runs your heed's chapter programs against them.)
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function fence(s,   t, n) { t = trim(s); n = 0; while (substr(t, n + 1, 1) == "`") n++; return n >= 3 ? n : 0 }
{
  sub(/\r$/, "")
  line[NR] = $0
}
END {
  for (i = 1; i <= NR; i++) {
    t = trim(line[i])
    if (t !~ /^<!--[ \t]*output:.*-->$/) continue
    args = t; sub(/^<!--[ \t]*output:/, "", args); sub(/-->$/, "", args); args = trim(args)
    open = (i + 1 <= NR) ? fence(line[i + 1]) : 0
    if (!open) continue
    if (!(args in seen)) { seen[args] = 1; order[++n] = args }
    for (j = i + 2; j <= NR; j++) {
      u = trim(line[j])
      if (fence(line[j]) >= open && u ~ /^`+$/) break
      text[args] = text[args] line[j] "\n"
    }
    i = j
  }
  for (k = 1; k <= n; k++) printf "@@%s\n%s", order[k], text[order[k]]
}
