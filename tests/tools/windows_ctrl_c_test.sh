#!/usr/bin/env bash
# Ctrl-C on Windows (make test-windows runs this; Wine and build-windows/heed.exe): a training
# interrupted by a Ctrl-C key press saves, and resumed, ends with a checkpoint byte-identical to
# the run never interrupted. The key press is real as far as Wine goes: heed.exe runs in a
# console that Wine keeps on a pseudo-terminal (script(1)), and the byte 0x03 typed into that
# terminal is what a user's Ctrl-C is; Wine's console turns it into CTRL_C_EVENT, which reaches
# heed's SetConsoleCtrlHandler (tools/signals_windows.cpp). What it does not show: a real Windows console host
# (conhost, Windows Terminal), nor closing the console window (CTRL_CLOSE_EVENT).
#   tests/tools/windows_ctrl_c_test.sh [BUILD]   (BUILD: build-windows; WINE: wine)
set -uo pipefail
build=${1:-build-windows}
wine=${WINE:-wine}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run="train --task reverse --model additive --min-len 3 --max-len 8 --embed 16 --hidden 32 --batch 16 --seed 7 --eval-samples 20"
steps=1000
# One thread: the thread pool's waits are slow under Wine (about 5 steps a second on two threads,
# 20 on one, on a loaded machine), and no thread count changes a bit.
export HEED_THREADS=1
export WINEDEBUG=${WINEDEBUG:--all}
failed=0
fail() { echo "windows_ctrl_c_test: FAILED: $*" >&2; failed=1; }

# The run never interrupted.
$wine "$build/heed" $run --steps $steps --save "$dir/whole.safetensors" >"$dir/whole.out" 2>"$dir/whole.err" ||
  fail "the uninterrupted run: $(tail -n 3 "$dir/whole.err")"

# In a console (script's pseudo-terminal): Ctrl-C typed once heed has printed its first step, then
# the resume outside any console.
{
  # (its first progress line: "loss", which script's header line, holding the command, lacks)
  for _ in $(seq 1 600); do grep -q 'loss' "$dir/typed.log" 2>/dev/null && break; sleep 0.1; done
  printf '\003'
  sleep 30  # (script ends with heed; this only keeps its input open until then)
} | script -qefc "$wine $build/heed $run --steps $steps --save $dir/typed.safetensors" "$dir/typed.log" >/dev/null 2>&1
status=$?
# (Wine's console draws spaces as cursor moves: the text is read without its blanks)
plain=$(sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' "$dir/typed.log" | tr -d ' \r\n')
if ! grep -q 'Ctrl-Catstep' <<<"$plain"; then
  fail "typed Ctrl-C: no 'Ctrl-C at step' in the console (status $status): $(tail -c 400 <<<"$plain")"
else
  grep -o 'Ctrl-Catstep[0-9]*/[0-9]*' <<<"$plain" | head -n 1 | sed 's/^/typed Ctrl-C: /'
  [ "$status" -eq 130 ] || fail "typed Ctrl-C: exit status $status, not 130"
  $wine "$build/heed" train --resume "$dir/typed.safetensors" >/dev/null 2>"$dir/typed-resume.err" ||
    fail "typed Ctrl-C: the resume failed: $(tail -n 3 "$dir/typed-resume.err")"
  cmp "$dir/whole.safetensors" "$dir/typed.safetensors" || fail "typed Ctrl-C: the resumed checkpoint differs"
fi

if [ $failed -eq 0 ]; then
  echo "windows_ctrl_c_test: Ctrl-C typed into Wine's console saved a run that resumed byte-identical"
fi
exit $failed
