# heed: build, test, run. `make help` lists the targets.
#   make run            train the default demo (attention on reverse) and show what it learned
#   make test           build everything and run every test (installs doctest if needed)
#   make tutorials      run every chapter program (ARGS=--quick for the short versions)
#   make tutorial-NN    build and run chapter NN, e.g. make tutorial-03 ARGS=--quick
#   make check-chapters  run the long chapter programs and compare with their text
#   make bench          time a training step of every model at configurations S and M
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

.PHONY: all test run tutorials bench clean help doctest check-chapters
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

bench: $(BUILD)/heed
	$(BUILD)/heed bench

clean:
	rm -rf $(BUILD)

help:
	@sed -n '2,7p' Makefile | sed 's/^# *//'

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
