#!/bin/sh
# Grades a class's exercises: a folder of students' copies, each holding only their answers,
#   STUDENTS/<name>/exercises/NN_topic/exercises.cpp   (a missing file counts as not done)
# into one table, one row per student, and one results document per student (the JSON of
# make exercises JSON=FILE, exercises/README.md). The library and the checker are built once;
# each answer is compiled once per distinct content (an untouched exercise, or two identical
# copies, compile once), then linked with its chapter's checker and run.
#
#   tools/grade_exercises.sh STUDENTS [OUT]     OUT defaults to build/grades
#   CHAPTERS="07 08"   grade only these chapters (default: all)
#   SEED=N             the grader's seed (make exercises SEED=N)
#   CHECKS=DIR         a grader's own checks, DIR/NN_*.cpp (make exercises CHECKS=DIR)
#
# Writes OUT/table.txt (also printed), OUT/table.csv (one row per student, one column per exercise,
# its status), OUT/identical.txt (the chapters whose answers are identical between students, once
# whitespace and comments are set aside: a list for the lecturer to read, not a mark), OUT/<name>.json,
# and OUT/work/<name>/ (the programs, the compiler's messages for an answer that does not compile).
# A chapter that does not compile counts every one of its exercises as not passed ("wrong", the
# message saying so). Run from the repository's root.
# Exit status 0 when every student was graded (whatever their results), 2 on a usage error.
set -u

fail() { echo "grade_exercises: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || fail "usage: tools/grade_exercises.sh STUDENTS [OUT]"
students=$1
out=${2:-build/grades}
[ -d "$students" ] || fail "$students is not a folder of students' copies"
[ -f exercises/exercises.mk ] || fail "run me from heed's root folder (exercises/exercises.mk is missing)"

# The library and the checker's objects, once.
make -s exercise-checker ${CHECKS:+CHECKS="$CHECKS"} >&2 || fail "could not build the library and the checker"
commands=$(make -s exercise-commands ${CHECKS:+CHECKS="$CHECKS"})
compile=$(echo "$commands" | sed -n 's/^compile //p')
link=$(echo "$commands" | sed -n 's/^link //p')
libs=$(echo "$commands" | sed -n 's/^libs //p')
build=$(echo "$commands" | sed -n 's/^build //p')

mkdir -p "$out/work" "$out/cache" || fail "cannot write $out"
command -v perl >/dev/null || fail "perl is needed to compare answers (it comes with git and with macOS)"

# The objects of the grader's checks of chapter $1 (CHECKS=DIR: DIR/NN_*.cpp, built by make above).
grader_objects() {
  [ -n "${CHECKS:-}" ] || return 0
  for c in "$CHECKS"/"$1"_*.cpp; do
    [ -f "$c" ] && echo "$build/obj/grader-checks/$(basename "$c" .cpp).o"
  done
}
chapters=${CHAPTERS:-$(ls -d exercises/[0-9][0-9]_* | sed 's|exercises/||; s|_.*||')}
table="$out/table.txt"
{
  printf '%-16s' student
  for n in $chapters; do printf ' %6s' "$n"; done
  printf ' %7s  %s\n' total notes
} >"$table"

# grade SRC N WORK: compiles SRC (once per content), links it with chapter N's checker in WORK and
# runs it, writing WORK/N.json; status 1 when SRC does not compile (WORK/N.compile.log says why).
grade() {
  local src=$1 n=$2 work=$3 folder key cached obj json  # (dash, bash and macOS's sh know local)
  folder=$(ls -d exercises/"$n"_* 2>/dev/null | head -n 1)
  key=$( { cat "$src"; echo "$compile"; } | sha256sum | cut -c1-32)
  cached="$out/cache/$key.o"
  obj="$work/obj/$folder/exercises.o"
  mkdir -p "$(dirname "$obj")"
  if [ ! -f "$cached" ]; then
    # The answer is compiled where its chapter's headers are found (-I. at the root).
    cp "$src" "$work/$n.cpp"
    $compile -c "$work/$n.cpp" -o "$cached.tmp" >"$work/$n.compile.log" 2>&1 || return 1
    mv "$cached.tmp" "$cached"
  fi
  json="$work/$n.json"
  # The grader's objects are split into words on purpose: paths under build/, without spaces.
  # shellcheck disable=SC2046
  if cp "$cached" "$obj" &&
     $link "$build"/obj/exercises/check/main.o "$build"/obj/exercises/check/check.o "$build"/obj/exercises/check/objects.o \
       "$build"/obj/exercises/check/trainer.o "$build"/obj/exercises/check/"$n"_check.o \
       $(grader_objects "$n") "$obj" "$build"/libheed.a -o "$work/exercise-$n" $libs \
       >"$work/$n.link.log" 2>&1; then
    # The checker reads the library's call graph beside its libheed.a (objects.h): the build's.
    ln -sf "$(cd "$build" && pwd)/libheed.a" "$work/libheed.a"
    "$work/exercise-$n" --strict ${SEED:+--seed "$SEED"} --json "$json" >"$work/$n.out" 2>&1
    if [ ! -s "$json" ]; then  # the checker stopped before grading (it says why in $n.out)
      echo "grade_exercises: $work's chapter $n gave no results; see $work/$n.out" >&2
      printf '\n{"chapter": "%s", "folder": "%s", "compiles": true, "message": "the checker stopped before grading; its messages are in %s", "counts": {"passed": 0, "not_done": 0, "wrong": 0, "refused": 0, "total": 0}, "exercises": []}\n\n' \
        "$n" "$folder" "$work/$n.out" >"$json"
    fi
  else
    printf '\n{"chapter": "%s", "folder": "%s", "compiles": true, "message": "could not be linked; the linker'"'"'s messages are in %s", "counts": {"passed": 0, "not_done": 0, "wrong": 0, "refused": 0, "total": 0}, "exercises": []}\n\n' \
      "$n" "$folder" "$work/$n.link.log" >"$json"
  fi
  return 0
}

# An answer as the comparison of answers sees it: without comments and whitespace.
normalised() { perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{\s+}{}g' "$1" | sha256sum | cut -c1-32; }

csv_rows="$out/work/statuses"
: >"$csv_rows"
: >"$out/work/answers"
for dir in "$students"/*/; do
  name=$(basename "$dir")
  work="$out/work/$name"
  rm -rf "$work"
  mkdir -p "$work"
  row=$(printf '%-16s' "$name")
  passed_all=0 total_all=0 notes=""
  records=""
  for n in $chapters; do
    folder=$(ls -d exercises/"$n"_* 2>/dev/null | head -n 1)
    [ -n "$folder" ] || fail "no chapter $n in exercises/"
    src="$dir$folder/exercises.cpp"
    if [ -f "$src" ]; then
      [ "$(normalised "$src")" = "$(normalised "$folder/exercises.cpp")" ] ||
        printf '%s %s %s\n' "$n" "$(normalised "$src")" "$name" >>"$out/work/answers"
    else
      src="$folder/exercises.cpp"  # not handed in: the untouched exercise
    fi
    json="$work/$n.json"
    if ! grade "$src" "$n" "$work"; then
      # Not compiled: every exercise of the chapter (the untouched file's, graded once) is not passed.
      stub="$out/work/untouched"
      mkdir -p "$stub"
      [ -s "$stub/$n.json" ] || grade "$folder/exercises.cpp" "$n" "$stub" || fail "the untouched $folder does not compile"
      count=$(grep -o '"status": "' "$stub/$n.json" | wc -l | tr -d ' ')
      log="$work/$n.compile.log"
      LOG="$log" COUNT="$count" perl -pe 's/"compiles": true, "message": ""/"compiles": false, "message": "does not compile; the compiler\x27s messages are in $ENV{LOG}"/;
        s/"status": "[a-z ]*", "message": "(?:[^"\\]|\\.)*"/"status": "wrong", "message": "its chapter does not compile"/g;
        s/"counts": \{[^}]*\}/"counts": {"passed": 0, "not_done": 0, "wrong": $ENV{COUNT}, "refused": 0, "total": $ENV{COUNT}}/' \
          "$stub/$n.json" >"$json"
    fi
    record=$(sed '1d;$d' "$json" 2>/dev/null | sed 's/,$//')
    records="$records${records:+,
}$record"
    passed=$(echo "$record" | grep -o '"passed": [0-9]*' | head -n 1 | grep -o '[0-9]*$')
    total=$(echo "$record" | grep -o '"total": [0-9]*' | head -n 1 | grep -o '[0-9]*$')
    row="$row$(printf ' %6s' "${passed:-0}/${total:-0}")"
    passed_all=$((passed_all + ${passed:-0}))
    total_all=$((total_all + ${total:-0}))
    echo "$record" | grep -o '"id": "[0-9.]*", "name": "[a-z_0-9]*", "grader_check": [a-z]*, "status": "[a-z ]*"' |
      sed 's/"id": "\([0-9.]*\)".*"status": "\([a-z ]*\)"/\1 \2/' | sed "s|^|$name |" >>"$csv_rows"
    if echo "$record" | grep -q '"compiles": false'; then
      notes="$notes${notes:+, }$n does not compile"
    else
      # Each exercise that is wrong or refused, by its id.
      for status in wrong refused; do
        ids=$(echo "$record" | grep -o '"id": "[0-9.]*", "name": "[a-z_0-9]*", "grader_check": [a-z]*, "status": "'$status'"' |
              sed 's/"id": "\([0-9.]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')
        [ -n "$ids" ] && notes="$notes${notes:+, }$ids $status"
      done
    fi
  done
  printf '{"format": "heed-exercises 1", "seed": %s, "chapters": [\n%s\n]}\n' "${SEED:-null}" "$records" >"$out/$name.json"
  echo "$row$(printf ' %7s  %s' "$passed_all/$total_all" "$notes")" >>"$table"
done

# The CSV for course systems: a header of exercise ids (in the order graded), one row per student.
awk '
  { student = $1; id = $2; status = $3; for (i = 4; i <= NF; ++i) status = status " " $i
    if (!(id in seen)) { seen[id] = 1; ids[++n] = id }
    if (!(student in known)) { known[student] = 1; students[++m] = student }
    cell[student, id] = status }
  END { printf "student"; for (i = 1; i <= n; ++i) printf ",%s", ids[i]; printf "\n"
        for (s = 1; s <= m; ++s) { printf "%s", students[s]
          for (i = 1; i <= n; ++i) printf ",%s", cell[students[s], ids[i]]; printf "\n" } }' "$csv_rows" >"$out/table.csv"

# Identical answers: chapters whose handed-in files are the same between students once comments and
# whitespace are set aside (the untouched file is no answer). For the lecturer to read, not a mark.
sort "$out/work/answers" | awk '
  { key = $1 " " $2; if (key in names) { names[key] = names[key] ", " $3; count[key]++ } else { names[key] = $3; count[key] = 1; order[++n] = key } }
  END { found = 0
        for (i = 1; i <= n; ++i) if (count[order[i]] > 1) { split(order[i], k, " "); print "chapter " k[1] ": " names[order[i]]; found = 1 }
        if (!found) print "no two students handed in the same answers" }' >"$out/identical.txt"
cat "$table"
echo "identical answers (whitespace and comments aside; for you to read, not a mark):"
sed 's/^/  /' "$out/identical.txt"
