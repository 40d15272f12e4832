# Compares a chapter program's output (the second file) with the text the chapter shows (the
# first), line by line: the words must be the same, and every number equal within 1e-9 of its
# size (1e-12 at least), since your pieces may round in the last bits where heed's do not (heed
# fuses multiply-adds; a sum may add in another order). A line that matches `excuse` (a regular
# expression; "" matches none) in both files may differ: exercises/yours/differences says which and
# why. Prints each difference as "  line N: the text: ...", "  yours:    ...", and "excused N" for
# the excused ones; exits 1 when a difference is not excused.
function split_numbers(s, parts,   n, rest, at) {
  n = 0
  rest = s
  while (match(rest, /[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?/)) {
    parts[++n] = "w" substr(rest, 1, RSTART - 1)
    parts[++n] = "n" substr(rest, RSTART, RLENGTH)
    rest = substr(rest, RSTART + RLENGTH)
  }
  parts[++n] = "w" rest
  return n
}
function same(a, b,   pa, pb, na, nb, i, x, y, d, tol) {
  if (a == b) return 1
  na = split_numbers(a, pa)
  nb = split_numbers(b, pb)
  if (na != nb) return 0
  for (i = 1; i <= na; i++) {
    if (substr(pa[i], 1, 1) != substr(pb[i], 1, 1)) return 0
    if (substr(pa[i], 1, 1) == "w") { if (pa[i] != pb[i]) return 0; continue }
    x = substr(pa[i], 2) + 0; y = substr(pb[i], 2) + 0
    d = x - y; if (d < 0) d = -d
    tol = (x < 0 ? -x : x) * 1e-9; if (tol < 1e-12) tol = 1e-12
    if (d > tol) return 0
  }
  return 1
}
FNR == NR { want[FNR] = $0; nw = FNR; next }
{ got[FNR] = $0; ng = FNR }
END {
  bad = 0; excused = 0
  n = nw > ng ? nw : ng
  for (i = 1; i <= n; i++) {
    if (i <= nw && i <= ng && same(want[i], got[i])) continue
    if (excuse != "" && i <= nw && i <= ng && want[i] ~ excuse && got[i] ~ excuse) { excused++; continue }
    if (bad < 3) {
      printf "  line %d: the text: %s\n", i, (i <= nw ? want[i] : "(it ends before)")
      printf "           yours:    %s\n", (i <= ng ? got[i] : "(it ends before)")
    }
    bad++
  }
  if (bad > 3) printf "  ... %d lines differ in all\n", bad
  printf "excused %d\n", excused
  exit bad > 0
}
