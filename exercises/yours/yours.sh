#!/usr/bin/env bash
# make yours / make yours-test (exercises/yours.mk sets the variables): heed built on your pieces.
#   1. each chapter holding a piece (exercises/yours/pieces) is checked by its exercise checker,
#      refusals included (an answer calling heed's own version is refused, never substituted);
#   2. a piece whose exercises all passed is yours: its joint (exercises/yours/PIECE.cpp), which
#      defines heed's function on your code, and your answers' object are linked before a copy of
#      heed's library in which that function (with all else the joint defines, such as a vtable
#      clang++ emits beside it) is made weak (objcopy -W), so the linker takes yours;
#      everything else is heed's own objects, already built (heed, the chapter programs);
#   3. (yours-test) a wrong or refused piece is reported alone, with its check's table, and nothing
#      that would use it runs; then the gradient checks of the ops your pieces replace, then the
#      chapters' quick outputs on the chapter programs linked (exercises/yours/compare.awk), then a
#      short training on your heed and on heed's, their losses compared to 1e-9, then the
#      milestones: your heed learns to reverse, and translates chapter 11's seed sentence.
# YOURS_PIECES="a b" takes those pieces unchecked (for the tests: it shows that a piece is used).
set -u
TABLE=exercises/yours/pieces

# MODE=score (make exercises' scoreboard): how many pieces of your heed the checks just run have
# passed, read from their reports, BUILD/exercise-NN.out.
if [ "${MODE:-}" = score ]; then
  done_=0 total=0
  while read -r name exs _; do
    case "$name" in ''|'#'*) continue ;; esac
    total=$((total + 1)) ok=1
    for e in ${exs//,/ }; do
      n=${e%%:*} x=${e#*:}
      grep -Eq "^  $n\.[0-9]+ $x +passed\$" "$BUILD/exercise-$n.out" 2>/dev/null || ok=0
    done
    done_=$((done_ + ok))
  done <"$TABLE"
  printf '  your heed: %d of %d pieces (make yours builds heed on them, make yours-test checks it)\n' "$done_" "$total"
  # Chapter 07's capstone (07.4-07.6), and the milestones the last make yours-test reached (it
  # writes them in YOURS/milestones when it passes).
  capstone=$(grep -Ec '^  07\.[4-6] [a-z_]+ +passed$' "$BUILD/exercise-07.out" 2>/dev/null)
  printf '  capstone 07 (your decoder step, loss and training loop): %d of 3 passed\n' "${capstone:-0}"
  if [ -s "${YOURS:-build-yours}/milestones" ]; then
    printf '  %s (make yours-test, %s)\n' "$(cat "${YOURS:-build-yours}/milestones")" "${YOURS:-build-yours}/"
  else
    printf '  milestones: make yours-test reaches them (your heed trains reverse, translates the seed sentence, its losses equal heed'"'"'s)\n'
  fi
  exit 0
fi

# Set by exercises/yours.mk: MAKE CXX CXXFLAGS LDFLAGS BUILD LIB YOURS ANSWERS ANSBUILD HEED_OBJS
# CHAPTER_OBJS MODE (build or test).
: "${YOURS:?}" "${ANSWERS:?}" "${ANSBUILD:?}" "${BUILD:?}" "${LIB:?}" "${MODE:?}"
say() { printf '%s\n' "$*"; }
fail() { printf 'make yours: %s\n' "$*" >&2; exit 2; }

mkdir -p "$YOURS" || fail "cannot make $YOURS"
# The milestones the last make yours-test reached, for make exercises' scoreboard: written when it
# passes, and gone as soon as your heed is built again.
rm -f "$YOURS/milestones"
pieces=() chapters=()
declare -A ex rep chapter
while read -r name exs replaces; do
  case "$name" in ''|'#'*) continue ;; esac
  pieces+=("$name")
  ex[$name]=$exs
  rep[$name]=$replaces
  for e in ${exs//,/ }; do chapters+=("${e%%:*}"); done
done <"$TABLE"
mapfile -t chapters < <(printf '%s\n' "${chapters[@]}" | sort -u)

# 1. The checks, one chapter at a time (the line grows as each is checked).
printf 'make yours: checking the chapters that hold pieces:'
for n in "${chapters[@]}"; do
  printf ' %s' "$n"
  rm -f "$YOURS/exercise-$n.json" "$YOURS/exercise-$n.out"
  src=$(find "$ANSWERS" -mindepth 2 -maxdepth 2 -path "$ANSWERS/${n}_*/exercises.cpp" 2>/dev/null | head -n 1)
  if [ -z "$src" ]; then chapter[$n]=absent; continue; fi
  # (a make of its own, told what this one was: no jobserver to share with make's own job)
  # shellcheck disable=SC2086  # MAKE may be a command with arguments
  if ! env -u MAKEFLAGS -u MFLAGS $MAKE --no-print-directory -s BUILD="$BUILD" YOURS="$YOURS" ANSWERS="$ANSWERS" \
      CXX="$CXX" CXXFLAGS="$CXXFLAGS" LDFLAGS="$LDFLAGS" "$ANSBUILD/exercise-$n" >"$YOURS/exercise-$n.log" 2>&1; then
    chapter[$n]=broken; continue
  fi
  "$ANSBUILD/exercise-$n" --strict --json "$YOURS/exercise-$n.json" >"$YOURS/exercise-$n.out" 2>&1
  [ -s "$YOURS/exercise-$n.json" ] || { cat "$YOURS/exercise-$n.out"; fail "the checker of chapter $n wrote no results"; }
  chapter[$n]=checked
done
printf '\n'

# An exercise's id and status from its chapter's results: "04.4 passed".
exercise_status() {  # chapter name
  tr '{' '\n' <"$YOURS/exercise-$1.json" | grep -F "\"name\": \"$2\", \"grader_check\": false" |
    sed 's/.*"id": "\([^"]*\)".*"status": "\([^"]*\)".*/\1 \2/' | head -n 1
}

# 2. Which pieces are yours.
yours=() report=() wrong=()
for p in "${pieces[@]}"; do
  exs=${ex[$p]}
  state=yours why='' names=
  for e in ${exs//,/ }; do
    n=${e%%:*} x=${e#*:}
    case "${chapter[$n]}" in
      absent) st="$n.? not_done"; msg="no $ANSWERS/${n}_*/exercises.cpp" ;;
      broken) st="$n.? wrong"; msg="chapter $n does not compile: $YOURS/exercise-$n.log" ;;
      *) st=$(exercise_status "$n" "$x"); msg= ;;
    esac
    [ -n "$st" ] || st="$n.? wrong"
    id=${st%% *} s=${st#* }
    names="$names${names:+, }$id $x"
    case "$s" in
      passed) ;;
      refused) state=refused; why="$why${why:+; }$id $x: refused, it calls heed's own version" ;;
      wrong) [ "$state" = refused ] || state=wrong; why="$why${why:+; }$id $x: wrong${msg:+ ($msg)}" ;;
      *) [ "$state" = yours ] && state=not_done; why="$why${why:+; }$id $x: not done yet${msg:+ ($msg)}" ;;
    esac
  done
  if [ -n "${YOURS_PIECES+x}" ]; then  # taken as given, unchecked
    case " $YOURS_PIECES " in (*" $p "*) state=yours why="taken unchecked (YOURS_PIECES)" ;; (*) state=not_done why="not in YOURS_PIECES" ;; esac
  fi
  case "$state" in
    yours) yours+=("$p"); line=$(printf '%-7s %s%s' yours "$names" "${why:+ ($why)}") ;;
    *) line=$(printf '%-7s %s' "heed's" "$why"); [ "$state" = not_done ] || wrong+=("$p|$names|$why") ;;
  esac
  report+=("$(printf '  %-15s %s' "$p" "$line")")
done

# The library with heed's versions of your pieces made weak, so that the linker takes the joints'.
# Weakened: every symbol a joint defines that the library defines too, not only the function the
# piece replaces. A compiler may emit more than that function in the joint's object: clang++
# puts there the vtable and type information of a class whose first virtual function it defines
# (Adam, DotScore), where g++ emits them as weak copies; left strong in the library, they
# would collide. Strong definitions: nm's T (code), D, R and B (data), weak ones (W, V) already
# give way. The function each piece replaces must be among them, or the table is out of date
# (objcopy would quietly weaken nothing). (libc++ spells std:: as std::__1::, which the table
# does not: it is read as std::.)
strong() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRB]$/ { print $3 }' | sort -u; }
library=$(strong "$LIB")
weaken=() joints=() objects=()
for p in "${yours[@]}"; do
  exs=${ex[$p]}
  joint="$BUILD/obj/exercises/yours/$p.o"
  shared=$(comm -12 <(strong "$joint") <(printf '%s\n' "$library"))
  sym=$(paste -d '\t' <(printf '%s\n' "$shared" | c++filt | sed 's/std::__1::/std::/g') <(printf '%s\n' "$shared") |
        awk -F '\t' -v r="${rep[$p]}" '$1 == r { print $2 }')
  [ -n "$sym" ] || fail "${rep[$p]} (piece $p) is not defined in $LIB and $joint; exercises/yours/pieces is out of date"
  for s in $shared; do weaken+=(-W "$s"); done
  joints+=("$joint")
  for e in ${exs//,/ }; do
    n=${e%%:*}; o=$(find "$ANSBUILD/obj/exercises" -mindepth 2 -maxdepth 2 -path "$ANSBUILD/obj/exercises/${n}_*/exercises.o" | head -n 1)
    case " ${objects[*]} " in (*" $o "*) ;; (*) objects+=("$o") ;; esac
  done
done
if ! { cp "$LIB" "$YOURS/libheed.a.new" && { [ ${#weaken[@]} -eq 0 ] || objcopy "${weaken[@]}" "$YOURS/libheed.a.new"; } &&
        mv "$YOURS/libheed.a.new" "$YOURS/libheed.a"; }; then
  fail "could not write $YOURS/libheed.a"
fi
say "make yours: linking $YOURS/heed and $YOURS/engine-check (${#yours[@]} of ${#pieces[@]} pieces yours)"
# shellcheck disable=SC2086  # the flags are words
$CXX $CXXFLAGS $HEED_OBJS "${joints[@]}" "${objects[@]}" "$YOURS/libheed.a" -o "$YOURS/heed" $LDFLAGS ||
  fail "could not link $YOURS/heed"
# shellcheck disable=SC2086
$CXX $CXXFLAGS "$BUILD/obj/exercises/yours/engine_check.o" "${joints[@]}" "${objects[@]}" "$YOURS/libheed.a" \
  -o "$YOURS/engine-check" $LDFLAGS || fail "could not link $YOURS/engine-check"

# The chapter programs, from the objects heed's own are linked from.
chapters_linked=
[ -z "${CHAPTER_OBJS:-}" ] || say "make yours: linking the chapter programs on your heed"
for o in ${CHAPTER_OBJS:-}; do
  d=${o%/main.o}; d=${d##*/}; n=${d%%_*}
  # shellcheck disable=SC2086
  $CXX $CXXFLAGS "$o" "${joints[@]}" "${objects[@]}" "$YOURS/libheed.a" -o "$YOURS/tutorial-$n" $LDFLAGS ||
    fail "could not link $YOURS/tutorial-$n"
  chapters_linked="$chapters_linked${chapters_linked:+ }$n"
done

say "your heed, in $YOURS/ (answers from $ANSWERS/):"
printf '%s\n' "${report[@]}"
say "${#yours[@]} of ${#pieces[@]} pieces are yours; $YOURS/heed runs on them and on heed's own for the rest"
[ -z "$chapters_linked" ] || say "the chapter programs on your heed: $YOURS/tutorial-NN, NN in $chapters_linked"
[ "$MODE" = test ] || exit 0

# 3. make yours-test. First each piece alone: a wrong or refused one is reported with its check's
# table, and nothing built on it runs.
if [ ${#wrong[@]} -gt 0 ]; then
  for w in "${wrong[@]}"; do
    p=${w%%|*} rest=${w#*|}; names=${rest%%|*} why=${rest#*|}
    say ""
    say "yours-test: the piece $p is not right: $why"
    for id in $(printf '%s\n' "$names" | tr ',' '\n' | awk '{ print $1 }'); do
      n=${id%%.*}
      [ -f "$YOURS/exercise-$n.out" ] &&
        awk -v id="$id" '$1 == id { on = 1; print; next } on && /^      / { print; next } { on = 0 }' "$YOURS/exercise-$n.out"
    done
  done
  say ""
  say "yours-test: ${#wrong[@]} piece(s) not right; nothing that uses them was run (make exercise-NN checks a chapter)"
  exit 1
fi
say ""
say "yours-test: the gradient checks of the ops your pieces replace, on your heed"
"$YOURS/engine-check" grad || { say "yours-test: a gradient check failed on your heed (its table is above)"; exit 1; }
# The chapters' quick outputs: each chapter program linked on your heed (YOURS_CHAPTERS) must print
# what its chapter shows in its `<!-- output: ARGS -->` blocks (the blocks make test holds heed's
# programs to), numbers within 1e-9 of their size; the lines exercises/yours/differences names
# may differ, and are counted and explained.
if [ -z "$chapters_linked" ]; then
  say "yours-test: no chapter program linked (YOURS_CHAPTERS is empty): the chapters' outputs not compared"
else
  say "yours-test: the chapters' quick outputs, on your heed's chapter programs (numbers to 1e-9 of their size)"
fi
for n in $chapters_linked; do
  readme=$(find tutorials -mindepth 2 -maxdepth 2 -path "tutorials/${n}_*/README.md" | head -n 1)
  [ -n "$readme" ] || continue
  awk -f exercises/yours/blocks.awk "$readme" >"$YOURS/chapter-$n.blocks"
  outputs=0 excused=0 why=
  while IFS= read -r args; do
    awk -v a="$args" '/^@@/ { on = (substr($0, 3) == a); next } on' "$YOURS/chapter-$n.blocks" >"$YOURS/chapter-$n.text"
    # shellcheck disable=SC2086  # the arguments are words
    "$YOURS/tutorial-$n" $args >"$YOURS/chapter-$n.yours" 2>/dev/null ||
      { say "yours-test: $YOURS/tutorial-$n $args stopped (exit $?)"; exit 1; }
    excuse=$(awk -F '|' -v n="$n" -v a="$args" '$1 == n && $2 == a { print $3; exit }' exercises/yours/differences)
    if ! awk -v excuse="$excuse" -f exercises/yours/compare.awk "$YOURS/chapter-$n.text" "$YOURS/chapter-$n.yours" \
        >"$YOURS/chapter-$n.diff"; then
      say "yours-test: $YOURS/tutorial-$n${args:+ $args} does not print what chapter $n shows ($readme):"
      grep -v '^excused ' "$YOURS/chapter-$n.diff"
      exit 1
    fi
    k=$(sed -n 's/^excused //p' "$YOURS/chapter-$n.diff")
    if [ "${k:-0}" -gt 0 ]; then
      excused=$((excused + k))
      why="$why${why:+; }$(awk -F '|' -v n="$n" -v a="$args" '$1 == n && $2 == a { print $4; exit }' exercises/yours/differences)"
    fi
    outputs=$((outputs + 1))
  done < <(sed -n 's/^@@//p' "$YOURS/chapter-$n.blocks")
  line=$(printf '  tutorial-%s  %d output%s as chapter %s shows them' "$n" "$outputs" "$([ "$outputs" -eq 1 ] || echo s)" "$n")
  [ "$outputs" -gt 0 ] || line="  tutorial-$n  no quick output shown in the chapter"
  [ "$excused" -eq 0 ] || line="$line; $excused line$([ "$excused" -eq 1 ] || echo s) excused: $why"
  say "$line"
done
STEPS=${YOURS_STEPS:-40}
say "yours-test: $STEPS training steps of attention on reverse, on heed and on your heed"
"$BUILD/engine-check" train "$STEPS" >"$YOURS/losses-heed.txt" || exit 1
"$YOURS/engine-check" train "$STEPS" >"$YOURS/losses-yours.txt" || { say "yours-test: training on your heed stopped"; exit 1; }
paste "$YOURS/losses-heed.txt" "$YOURS/losses-yours.txt" | awk -v steps="$STEPS" '
  { d = $1 - $2; if (d < 0) d = -d; if (d > worst || NR == 1) { worst = d; at = NR; h = $1; y = $2 } n++ }
  END {
    if (n != steps) { printf "yours-test: %d losses of %d steps\n", n, steps; exit 1 }
    if (!(worst <= 1e-9)) {
      printf "yours-test: your heed'"'"'s losses differ from heed'"'"'s: step %d, heed %.17g, yours %.17g\n", at, h, y; exit 1 }
    printf "yours-test: the losses of %d steps equal heed'"'"'s within 1e-9 (largest difference %.1e, step %d)\n", n, worst, at }' ||
  exit 1
if cmp -s "$YOURS/losses-heed.txt" "$YOURS/losses-yours.txt"; then
  say "yours-test: identical bits (your pieces compute in heed's order, or none is yours)"
fi
# Every model kind whose pieces can be yours, at sizes past the widths a piece may go wrong past
# (sources of 14-20, a GRU of 35 units, a Transformer's width of 36): each one's losses must be
# heed's, so that a piece wrong only at some size, or only in a model the steps above do not run,
# is caught here too (engine-check train STEPS MODEL).
KSTEPS=${YOURS_MODEL_STEPS:-30}
say "yours-test: $KSTEPS training steps of each model kind on reverse 14-20 (GRU 35 units; Transformer width 36, 4 heads), on heed and on your heed"
for kind in additive general dot transformer decoder; do
  "$BUILD/engine-check" train "$KSTEPS" "$kind" >"$YOURS/losses-$kind-heed.txt" || exit 1
  "$YOURS/engine-check" train "$KSTEPS" "$kind" >"$YOURS/losses-$kind-yours.txt" ||
    { say "yours-test: training the $kind model on your heed stopped"; exit 1; }
  paste "$YOURS/losses-$kind-heed.txt" "$YOURS/losses-$kind-yours.txt" | awk -v steps="$KSTEPS" -v kind="$kind" '
    { d = $1 - $2; if (d < 0) d = -d; if (d > worst || NR == 1) { worst = d; at = NR; h = $1; y = $2 } n++ }
    END {
      if (n != steps) { printf "yours-test: the %s model: %d losses of %d steps\n", kind, n, steps; exit 1 }
      if (!(worst <= 1e-9)) {
        printf "yours-test: your heed'"'"'s losses differ from heed'"'"'s on the %s model: step %d, heed %.17g, yours %.17g\n", kind, at, h, y
        exit 1 }
      printf "yours-test:   %-12s losses equal heed'"'"'s within 1e-9 (largest difference %.1e, step %d)\n", kind, worst, at }' ||
    exit 1
done
# A milestone: Bahdanau attention, trained on your heed, reverses sequences it never saw.
REVERSE="train --task reverse --model additive --min-len 3 --max-len 6 --embed 16 --hidden 32 --batch 16 --steps 400 --seed 7 --eval-samples 200 --json"
# shellcheck disable=SC2086
"$YOURS/heed" $REVERSE >"$YOURS/reverse.txt" 2>&1 || { cat "$YOURS/reverse.txt"; say "yours-test: heed train stopped on your heed"; exit 1; }
exact=$(sed -n 's/.*"exact":\([0-9.]*\).*/\1/p' "$YOURS/reverse.txt")
trains=$(awk -v e="${exact:-0}" 'BEGIN { print (e >= 0.9 ? "yes" : "no") }')
say "yours-test: $YOURS/heed $REVERSE"
say "yours-test:   held-out sequences reversed exactly: $(printf '%.3f' "${exact:-0}") (a milestone at 0.9)"
# A milestone: chapter 11's seed sentence, translated by the additive model your heed trains (300
# steps of 64 pairs translate it; YOURS_TRANSLATE_STEPS=N runs N instead, a reduced budget that is
# reported but not judged, and 0 none), its attention matrix drawn by heed predict --svg.
SEED_DE="ich habe keinen hunger , weil ich ein brot gegessen habe ."
SEED_EN="i am not hungry , because i ate a sandwich ."
TSTEPS=${YOURS_TRANSLATE_STEPS:-300}
translates=no
if [ "$TSTEPS" -gt 0 ]; then
  TRANSLATE="train --task translate --model additive --steps $TSTEPS"
  # shellcheck disable=SC2086
  "$YOURS/heed" $TRANSLATE --save "$YOURS/translate.safetensors" >"$YOURS/translate.txt" 2>&1 ||
    { cat "$YOURS/translate.txt"; say "yours-test: heed train stopped on your heed"; exit 1; }
  "$YOURS/heed" predict --load "$YOURS/translate.safetensors" --svg "$YOURS/seed.svg" "$SEED_DE" >"$YOURS/seed.txt" 2>&1 ||
    { cat "$YOURS/seed.txt"; say "yours-test: heed predict stopped on your heed"; exit 1; }
  english=$(sed -n 's/^output: //p' "$YOURS/seed.txt")
  [ "$english" = "$SEED_EN" ] && translates=yes
  say "yours-test: $YOURS/heed $TRANSLATE, then heed predict --svg $YOURS/seed.svg (the attention matrix):"
  say "yours-test:   $SEED_DE -> $english"
  [ "$TSTEPS" -ge 300 ] || translates="$translates (a reduced budget of $TSTEPS steps, not judged: 300 translate it)"
else
  translates="not tried (YOURS_TRANSLATE_STEPS=0)"
fi
milestones="milestones: pieces done ${#yours[@]} of ${#pieces[@]}; your heed trains reverse: $trains; your heed translates the seed sentence: $translates; your heed's losses equal heed's: yes"
say "$milestones"
[ "$trains" = yes ] || { say "yours-test: your heed did not learn to reverse"; exit 1; }
[ "$translates" != no ] || { say "yours-test: your heed's model did not translate the seed sentence"; exit 1; }
printf '%s\n' "$milestones" >"$YOURS/milestones"
