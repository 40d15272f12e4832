# heed: build, test, run. `make help` lists the targets.
#   make run            train the default demo and show what it learned
#   make test           build everything and run every test (installs doctest if needed)
#   make tutorials      run every chapter program (ARGS=--quick for the short versions)
#   make tutorial-NN    build and run chapter NN, e.g. make tutorial-03 ARGS=--quick
#   make check-chapters  run the long chapter programs and compare with their text
#   make bench          time a training step of every model at configurations S and M
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

.PHONY: all test run tutorials bench clean help doctest check-chapters sanitize fuzz
.DEFAULT_GOAL := all

all: $(LIB) $(HEED) $(TESTS) $(CHAPTER_BINS)

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

run: $(CHAPTER_BINS) $(HEED)
	$(BUILD)/tutorial-$(firstword $(subst _, ,$(NEWEST)))

tutorials: $(CHAPTER_BINS)
	@set -e; for t in $(CHAPTER_BINS); do echo "== $$t $(ARGS)"; $$t $(ARGS); done

tutorial-%: $(BUILD)/tutorial-%
	$< $(ARGS)

bench: $(BUILD)/heed
	$(BUILD)/heed bench

# Sanitizers: the same sources rebuilt in build/sanitize (HEED_BUILD tells the tests where the
# programs are), then the suite and a short train/eval/predict. Every process writes its reports
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
	 $(SAN_ENV) $(SAN_BUILD)/tests || status=1; \
	 echo "== heed train, eval, predict (sanitized)"; \
	 $(SAN_ENV) $(SAN_BUILD)/heed train --task reverse --model additive --min-len 2 --max-len 5 --embed 8 \
	   --hidden 16 --batch 8 --steps 40 --eval-samples 40 --save $(SAN_CLI)/m.safetensors >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed eval --load $(SAN_CLI)/m.safetensors --lengths 2,6 --samples 20 >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed predict --load $(SAN_CLI)/m.safetensors --svg $(SAN_CLI)/a.svg "3 1 4" >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed train --hidden 1000000000 2>/dev/null; [ $$? -eq 2 ] || status=1; \
	 if [ -n "$$(ls -A $(SAN_LOG))" ]; then cat $(SAN_LOG)/*; echo "sanitize: reports above" >&2; status=1; fi; \
	 if [ $$status -eq 0 ]; then echo "sanitize: clean (no ASan, LSan or UBSan report)"; fi; exit $$status

clean:
	rm -rf $(BUILD)

help:
	@sed -n '2,9p' Makefile | sed 's/^# *//'

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
