# heed: build, test, run. `make help` lists the targets.
#   make run            train the default demo (attention on reverse) and show what it learned
#   make test           build everything and run every test (installs doctest if needed)
#   make tutorials      run every chapter program (ARGS=--quick for the short versions)
#   make tutorial-NN    build and run chapter NN, e.g. make tutorial-03 ARGS=--quick
#   make check-chapters  run the long chapter programs and compare with their text
#   make exercises      check every chapter's exercises (make exercise-NN: one chapter; exercises/)
#   make bench          time a training step of every benchmark model at configurations S and M
#   make sanitize       everything under AddressSanitizer, LeakSanitizer and UBSan: tests + a CLI run
#   make fuzz           fuzz the checkpoint loader and the CLI parsing (FUZZ_SECONDS=60 per target)
#   make clean          remove build/

CXX      ?= g++
# Optimised by default; override freely (make CXXFLAGS='-O0 -g'). A fixed instruction set,
# not -march=native, so every machine of this kind computes bit-identical numbers.
ARCH     := $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && echo -march=x86-64-v3)
CXXFLAGS ?= -O2 $(ARCH)
LDFLAGS  ?=
BASEFLAGS := -std=c++20 -Wall -Wextra -Wpedantic -I. -MMD -MP
BUILD    := build

LIB_SRCS  := $(wildcard tensor/*.cpp autograd/*.cpp nn/*.cpp models/*.cpp viz/*.cpp)
TEST_SRCS := $(wildcard tests/*.cpp)
TOOL_SRCS := $(filter-out tools/heed.cpp,$(wildcard tools/*.cpp))
CHAPTERS  := $(sort $(patsubst tutorials/%/main.cpp,%,$(wildcard tutorials/*/main.cpp)))
CHAPTER_BINS := $(foreach c,$(CHAPTERS),$(BUILD)/tutorial-$(firstword $(subst _, ,$(c))))
NEWEST    := $(lastword $(CHAPTERS))

LIB       := $(BUILD)/libheed.a
HEED      := $(if $(wildcard tools/heed.cpp),$(BUILD)/heed)
TESTS     := $(BUILD)/tests
DOCTEST   := /usr/include/doctest/doctest.h

obj = $(patsubst %.cpp,$(BUILD)/obj/%.o,$(1))

.PHONY: all test run tutorials bench clean help doctest check-chapters sanitize fuzz fuzz-toolchain
.DEFAULT_GOAL := all

all: $(LIB) $(HEED) $(TESTS) $(CHAPTER_BINS)

include exercises/exercises.mk

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(BASEFLAGS) $(CXXFLAGS) -c $< -o $@

$(LIB): $(call obj,$(LIB_SRCS))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/heed: $(call obj,tools/heed.cpp $(TOOL_SRCS)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

# Test objects need doctest's header; it comes from Debian's doctest-dev.
$(call obj,$(TEST_SRCS)): | $(DOCTEST)
$(TESTS): $(call obj,$(TEST_SRCS)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

.SECONDEXPANSION:
$(BUILD)/tutorial-%: $(LIB) $$(wildcard tutorials/$$*_*/main.cpp)
	@mkdir -p $(BUILD)/obj/tutorials
	$(CXX) $(BASEFLAGS) $(CXXFLAGS) $(wildcard tutorials/$*_*/main.cpp) $(LIB) -o $@ $(LDFLAGS) \
	  -MF $(BUILD)/obj/tutorials/$*.d -MT $@

$(DOCTEST):
	@if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	 else echo "heed: doctest is missing; install it with: apt-get install doctest-dev (as root)" >&2; exit 1; fi; \
	 echo "heed: installing doctest-dev (the test framework)"; \
	 $$SUDO apt-get install -y -qq doctest-dev >/dev/null 2>&1 || \
	 { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq doctest-dev; } || \
	 { echo "heed: could not install doctest-dev; run: apt-get install doctest-dev" >&2; exit 1; }

doctest: $(DOCTEST)

# Tests run from the repository root: chapter checks read tutorials/ and run build/tutorial-NN.
test: $(TESTS) $(CHAPTER_BINS) $(HEED)
	$(TESTS)

# The long chapter runs (output-full blocks): minutes, so CI runs them, not make test.
check-chapters: $(TESTS) $(CHAPTER_BINS)
	$(TESTS) -ts=chapters_full --no-skip

# The demo: Bahdanau attention learns to reverse sequences of 5-12 symbols (about a minute),
# then is scored by length (16 and 20 are longer than any it saw) and shows where it looked.
DEMO := $(BUILD)/demo.safetensors
run: $(BUILD)/heed
	$(BUILD)/heed train --task reverse --model additive --min-len 5 --max-len 12 --steps 1500 --save $(DEMO)
	$(BUILD)/heed eval --load $(DEMO) --lengths 5,8,12,16,20 --samples 200
	$(BUILD)/heed predict --load $(DEMO) "3 1 4 1 5 9 2 6 5 3"
	@echo "The model is in $(DEMO). Ask it more: $(BUILD)/heed predict --load $(DEMO) \"7 7 0 4 2\""

tutorials: $(CHAPTER_BINS)
	@set -e; for t in $(CHAPTER_BINS); do echo "== $$t $(ARGS)"; $$t $(ARGS); done

tutorial-%: $(BUILD)/tutorial-%
	$< $(ARGS)

# Every benchmark model of TASKS.md at configurations S and M, one process each (so that each
# peak RSS is its own). tools/bench_vs_pytorch.sh runs the PyTorch reference beside it.
BENCH_MODELS ?= plain additive general dot
BENCH_CONFIGS ?= S M
bench: $(BUILD)/heed
	@set -e; for c in $(BENCH_CONFIGS); do for m in $(BENCH_MODELS); do \
	  $(BUILD)/heed bench --config $$c --model $$m; done; done

# Sanitizers: the same sources rebuilt in build/sanitize (HEED_BUILD tells the tests where the
# programs are), then the suite, every chapter and a short train/eval/predict. The chapter checks
# compare printed numbers, which an -O1 build may round differently, so the chapters run here
# without comparison; make test compares them. Every process writes its reports
# to build/sanitize/reports; one report file, or any failure, fails the target.
SAN_BUILD := build/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LOG   := $(CURDIR)/$(SAN_BUILD)/reports
SAN_ENV   := HEED_BUILD=$(SAN_BUILD) \
  ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:log_path=$(SAN_LOG)/asan \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(SAN_LOG)/ubsan
SAN_CLI   := $(SAN_BUILD)/cli
sanitize:
	$(MAKE) BUILD=$(SAN_BUILD) CXXFLAGS="-O1 -g $(ARCH) $(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" all
	@rm -rf $(SAN_LOG) $(SAN_CLI) && mkdir -p $(SAN_LOG) $(SAN_CLI)
	@status=0; \
	 $(SAN_ENV) $(SAN_BUILD)/tests -tce='chapter*' || status=1; \
	 echo "== every chapter, --quick (sanitized; their printed numbers are compared by make test)"; \
	 for t in $(SAN_BUILD)/tutorial-*; do $(SAN_ENV) $$t --quick >/dev/null || status=1; done; \
	 echo "== heed train, eval, predict (sanitized)"; \
	 $(SAN_ENV) $(SAN_BUILD)/heed train --task reverse --model additive --min-len 2 --max-len 5 --embed 8 \
	   --hidden 16 --batch 8 --steps 40 --eval-samples 40 --save $(SAN_CLI)/m.safetensors >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed eval --load $(SAN_CLI)/m.safetensors --lengths 2,6 --samples 20 >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed predict --load $(SAN_CLI)/m.safetensors --svg $(SAN_CLI)/a.svg "3 1 4" >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed train --hidden 1000000000 2>/dev/null; [ $$? -eq 2 ] || status=1; \
	 if [ -n "$$(ls -A $(SAN_LOG))" ]; then cat $(SAN_LOG)/*; echo "sanitize: reports above" >&2; status=1; fi; \
	 if [ $$status -eq 0 ]; then echo "sanitize: clean (no ASan, LSan or UBSan report)"; fi; exit $$status

# Fuzzing with clang's libFuzzer (+ ASan, UBSan): each tests/fuzz/NAME_fuzz.cpp is linked with
# the library and tool sources compiled by clang into build/fuzz, then runs FUZZ_SECONDS from
# its seeds in tests/fuzz/corpus/NAME (new inputs go to build/fuzz/corpus/NAME, a failing input
# to build/fuzz/found/NAME-crash-*, -oom-, -timeout-). Each one found becomes a regression test.
FUZZ_SECONDS ?= 30
FUZZ_CXX     ?= clang++
FUZZ_BUILD   := build/fuzz
FUZZ_FLAGS   := -O1 -g $(ARCH) -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_NAMES   := $(patsubst tests/fuzz/%_fuzz.cpp,%,$(wildcard tests/fuzz/*_fuzz.cpp))
FUZZ_OBJS    := $(patsubst %.cpp,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRCS) $(TOOL_SRCS))

$(FUZZ_BUILD)/obj/%.o: %.cpp | fuzz-toolchain
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(BASEFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/%_fuzz: $(FUZZ_BUILD)/obj/tests/fuzz/%_fuzz.o $(FUZZ_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer $^ -o $@

fuzz: $(foreach n,$(FUZZ_NAMES),$(FUZZ_BUILD)/$(n)_fuzz)
	@set -e; for n in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$n $(FUZZ_BUILD)/found; rm -f $(FUZZ_BUILD)/found/$$n-*; \
	  echo "== fuzz $$n for $(FUZZ_SECONDS)s"; \
	  dict=; [ -f tests/fuzz/$$n.dict ] && dict=-dict=tests/fuzz/$$n.dict; \
	  $(FUZZ_BUILD)/$${n}_fuzz $$dict -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/found/$$n- \
	    $(FUZZ_BUILD)/corpus/$$n tests/fuzz/corpus/$$n >$(FUZZ_BUILD)/$$n.log 2>&1 && ok=1 || ok=0; \
	  grep -E '^(Done |#[0-9]+.*DONE)' $(FUZZ_BUILD)/$$n.log || true; \
	  if [ $$ok = 0 ]; then tail -n 40 $(FUZZ_BUILD)/$$n.log; \
	    echo "fuzz $$n failed; failing inputs are in $(FUZZ_BUILD)/found: make each a regression test" >&2; exit 1; fi; \
	done

# libFuzzer's runtime comes with clang (Debian: clang and libclang-rt-14-dev); installed when missing.
fuzz-toolchain:
	@printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > /tmp/heed-fuzz-probe.cpp
	@$(FUZZ_CXX) -fsanitize=fuzzer /tmp/heed-fuzz-probe.cpp -o /tmp/heed-fuzz-probe 2>/dev/null || { \
	 if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	 else echo "heed: libFuzzer is missing; install it with: apt-get install clang libclang-rt-14-dev (as root)" >&2; exit 1; fi; \
	 echo "heed: installing clang's libFuzzer runtime"; \
	 { $$SUDO apt-get install -y -qq clang libclang-rt-14-dev >/dev/null 2>&1 || \
	   { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq clang libclang-rt-14-dev; }; } && \
	 $(FUZZ_CXX) -fsanitize=fuzzer /tmp/heed-fuzz-probe.cpp -o /tmp/heed-fuzz-probe || \
	 { echo "heed: could not install libFuzzer; run: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }; }
	@rm -f /tmp/heed-fuzz-probe /tmp/heed-fuzz-probe.cpp

clean:
	rm -rf $(BUILD)

help:
	@sed -n 's/^#   \(make .*\)/\1/p' Makefile

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
