# heed: build, test, run. `make help` lists the targets.
#   make heed           the heed program alone (build/heed); make heed-float: its float twin (build-float/heed)
#   make install        heed as a library: headers, libheed.a, libheed-float.a, pkg-config files
#                       (PREFIX=/usr/local, DESTDIR honoured; docs/library.md); make uninstall removes them;
#                       make install-double or install-float: the headers and one of the libraries
#   make run            train the default demo (attention on reverse) and show what it learned
#   make test           build everything and run every test (installs doctest if needed)
#   make tutorials      run every chapter program (ARGS=--quick for the short versions)
#   make tutorial-NN    build and run chapter NN, e.g. make tutorial-03 ARGS=--quick
#   make check-chapters  run the long chapter programs and compare with their text
#   make figures        redraw the chapters' figures (SVG, committed beside each chapter)
#   make exercises      check every chapter's exercises (make exercise-NN: one chapter; exercises/)
#                       SEED=N, JSON=FILE, CHECKS=DIR for a grader; tools/grade_exercises.sh a class
#   make student-edition DIR=folder  the repository as a class hands it out (no solutions)
#   make yours          heed built on your passed exercises (build-yours/); make yours-test checks it;
#                       make yours-tutorial-NN runs chapter NN's program on it
#   make bench          time a training step of every benchmark model at configurations S and M
#   make sanitize       everything under AddressSanitizer, LeakSanitizer and UBSan: tests + a CLI run
#   make tsan           the thread pool's tests and the thread-count same-bits test under ThreadSanitizer
#   make fuzz           fuzz the checkpoint loader, the CLI parsing and data files (FUZZ_SECONDS=60 per target)
#   make float          heed, its tests, chapters and benchmark with 32-bit reals (float) in build-float/
#   make test-float     build build-float/ and run its tests (skips what only double can hold, saying why)
#   make test-clang     build with clang++ in build-clang/ and run every test there
#   make test-libcxx    build with clang++ and libc++ (macOS's C++ library) in build-libcxx/, run every test
#   make test-gcc11     build with g++ 11 (Ubuntu 22.04's, WSL's) in build-gcc11/ and run every test
#   make test-aarch64   cross-build for ARM64 in build-aarch64/ and run a subset under qemu-user
#   make windows        cross-build for Windows with MinGW-w64 in build-windows/ (heed.exe, tests, chapters)
#   make test-windows   build that and run its suites under Wine (docs/testing.md: which, and why)
#   make same-bits      train one model with one seed under g++, clang++, clang++ with libc++ and ARM64: same bytes?
#   make same-bits-windows  the same training by build/heed and by the Windows program under Wine: same bytes?
#   make clean          remove build/, build-float/, build-clang/, build-libcxx/, build-gcc11/, build-aarch64/, build-windows/, build-O0/ and build-yours/
#   make compile_commands.json  the compile commands, for clangd and editors (make format: clang-format)
#
# Builds run on every core by default (JOBS=N or make -jN to choose; -j1 for one at a time).
# The quality checks (sanitize, fuzz, the other compilers and ARM64, same-bits) are in mk/qa.mk.

# Parallel unless the command line chose: make's own -j, else one job per core.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Only the top make: a sub-make (make float, sanitize, ...) shares its parent's jobs.
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j% --jobs%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(JOBS)
endif
endif

CXX      ?= g++
# Optimised by default; override freely (make CXXFLAGS='-O0 -g'). The instruction set is a fixed
# one, not -march=native: on x86-64, AVX2 and FMA (x86-64-v3) when the compiler says this processor
# has them; nothing extra on ARM64, whose baseline has NEON and FMA. It only changes the speed:
# every kernel computes the same bits with or without it, and -ffp-contract=off stops any compiler
# from fusing a * b + c on its own (heed fuses where it says so), so g++, clang++, x86 and ARM agree.
ifeq ($(origin ARCH),undefined)
ARCH := $(shell case "$$($(CXX) -dumpmachine 2>/dev/null)" in (x86_64*|amd64*) \
  $(CXX) -march=native -dM -E -x c++ /dev/null 2>/dev/null | grep -c '__AVX2__\|__FMA__' | grep -qx 2 && \
  echo -march=x86-64-v3;; esac)
endif
CXXFLAGS ?= -O2 $(ARCH)
LDFLAGS  ?=
# The operating system's seam (io/os.h): POSIX's files, or Windows's twins where the compiler
# targets Windows (make windows, mk/windows.mk): io/os_windows.cpp for io/os_posix.cpp and
# tools/signals_windows.cpp for tools/signals.cpp.
WINDOWS_TARGET := $(shell case "$$($(CXX) -dumpmachine 2>/dev/null)" in (*mingw*|*windows*) echo yes;; esac)
OS_OTHER  := $(if $(WINDOWS_TARGET),io/os_posix.cpp tools/signals.cpp,%_windows.cpp)
# Windows programs are linked statically (no MinGW DLL to ship beside them), with
# io/os_windows.cpp's heed_windows_binary (every file and standard output in binary, so the bytes
# are Linux's: "\n", never "\r\n") and psapi (the peak memory heed bench reports).
ifneq ($(WINDOWS_TARGET),)
override LDFLAGS += -static -Wl,--undefined=heed_windows_binary -lpsapi
endif
BASEFLAGS := -std=c++20 -ffp-contract=off -Wall -Wextra -Wpedantic -I. -MMD -MP
BUILD    := build

# ---- The flags stamp: a change of compiler or flags rebuilds.
# $(BUILD)/flags holds the compiler and flags the objects of $(BUILD) were built with; every object
# depends on it, and make rewrites it (so makes it newer than the objects) when it starts with
# other ones. So `make CXXFLAGS='-O0 -g'` after a plain make compiles everything again, and a plain
# make after that too, rather than archiving objects of two kinds into one library.
# (:=, taken once here: the additions some targets make to BASEFLAGS, such as doctest's folder for
# the tests, are not the build's flags.)
FLAGS_STAMP := $(BUILD)/flags
FLAGS_NOW   := $(strip $(CXX) $(BASEFLAGS) $(CXXFLAGS) | $(LDFLAGS))
ifneq ($(strip $(shell cat $(FLAGS_STAMP) 2>/dev/null)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD) && printf '%s\n' '$(subst ','\'',$(FLAGS_NOW))' >$(FLAGS_STAMP))
endif
# ---- (end of the flags stamp)

# The kernel sets (tensor/kernels.h): the product and the vector math are compiled once per set,
# each into its own namespace, with the set's instruction set in place of ARCH; the program picks
# one when it runs. x86-64 targets get four sets, others (ARM64) one, for the target.
KERNEL_SRCS := tensor/gemm_kernel.cpp tensor/vmath_kernel.cpp
X86_TARGET := $(shell case "$$($(CXX) -dumpmachine 2>/dev/null)" in (x86_64*|amd64*) echo yes;; esac)
KERNEL_SETS := portable $(if $(X86_TARGET),avx2 avx2_wide avx512)
KERNEL_FLAGS_portable  := $(if $(X86_TARGET),-march=x86-64 -mtune=generic -Wno-psabi)
KERNEL_FLAGS_avx2      := -march=x86-64 -mtune=generic -Wno-psabi -mavx2 -mfma
KERNEL_FLAGS_avx2_wide := $(KERNEL_FLAGS_avx2) -DHEED_VECTOR_BYTES=64
KERNEL_FLAGS_avx512    := $(KERNEL_FLAGS_avx2) -mavx512f -mavx512vl -mavx512bw -mavx512dq -DHEED_VECTOR_BYTES=64
KERNEL_OBJS := $(foreach s,$(KERNEL_SETS),$(patsubst %.cpp,$(BUILD)/obj/%.$(s).o,$(KERNEL_SRCS)))

LIB_SRCS  := $(filter-out $(KERNEL_SRCS) $(OS_OTHER),$(wildcard tensor/*.cpp io/*.cpp autograd/*.cpp nn/*.cpp \
  models/*.cpp models/*/*.cpp viz/*.cpp))
# The suites, in folders that mirror the source (docs/testing.md), and their helpers (tests/support/);
# not the fuzz targets, heed-faults (below), nor the self-test's program and its answers (exercises/exercises.mk).
TEST_SRCS := $(filter-out tests/fuzz/% tests/faults/% tests/exercises/selftest.cpp tests/exercises/wrong/% tests/exercises/refused/%, \
  $(wildcard tests/*.cpp tests/*/*.cpp tests/*/*/*.cpp))
TOOL_SRCS := $(filter-out tools/heed.cpp $(OS_OTHER),$(wildcard tools/*.cpp))
CHAPTERS  := $(sort $(patsubst tutorials/%/main.cpp,%,$(wildcard tutorials/*/main.cpp)))
CHAPTER_BINS := $(foreach c,$(CHAPTERS),$(BUILD)/tutorial-$(firstword $(subst _, ,$(c))))
NEWEST    := $(lastword $(CHAPTERS))

LIB       := $(BUILD)/libheed.a
# The float build's folder and library (see `float` below).
FLOAT_BUILD := build-float
FLOAT_LIB   := $(FLOAT_BUILD)/libheed.a
HEED      := $(if $(wildcard tools/heed.cpp),$(BUILD)/heed)
TESTS     := $(BUILD)/tests
# doctest, the test framework (one header): Debian's doctest-dev, or Homebrew's doctest on macOS.
DOCTEST_DIRS := /usr/include /usr/local/include /opt/homebrew/include
DOCTEST   := $(firstword $(wildcard $(addsuffix /doctest/doctest.h,$(DOCTEST_DIRS))) /usr/include/doctest/doctest.h)
DOCTEST_I := $(if $(filter /usr/include/%,$(DOCTEST)),,-isystem $(patsubst %/doctest/doctest.h,%,$(DOCTEST)))

obj = $(patsubst %.cpp,$(BUILD)/obj/%.o,$(1))

.PHONY: figures all test run tutorials bench clean help doctest check-chapters float heed heed-float \
  install install-headers install-double install-float uninstall compile_commands.json format show-makeflags
.DEFAULT_GOAL := all

all: $(LIB) $(HEED) $(TESTS) $(CHAPTER_BINS)

include exercises/exercises.mk
include exercises/yours.mk

$(BUILD)/obj/%.o: %.cpp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(BASEFLAGS) $(CXXFLAGS) -c $< -o $@

# A kernel set's objects. Built for instructions the processor may lack, they must not define code
# that other files share (an inline function of a header, emitted once as a weak symbol): the
# linker could keep this copy, and a program would run AVX-512 code where its processor has none.
# nm checks that each defines no weak function (W) outside its own set's namespace. Weak data (V:
# the typeinfo objects clang's -fsanitize=function emits, say) holds no instructions and may be shared.
define kernel_set_rule
$(BUILD)/obj/tensor/%.$(1).o: tensor/%.cpp $(FLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(BASEFLAGS) $$(filter-out -march=% -mtune=%,$$(CXXFLAGS)) $$(KERNEL_FLAGS_$(1)) -DHEED_KERNEL_SET=$(1) -c $$< -o $$@
	@shared=$$$$(nm -C --defined-only $$@ | grep -E ' [Ww] ' | grep -v 'heed::kernel_set::$(1)::'); \
	 if [ -n "$$$$shared" ]; then echo "heed: $$@ defines code other files share:" >&2; echo "$$$$shared" >&2; \
	   rm -f $$@; exit 1; fi
endef
$(foreach s,$(KERNEL_SETS),$(eval $(call kernel_set_rule,$(s))))

$(LIB): $(call obj,$(LIB_SRCS)) $(KERNEL_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/heed: $(call obj,tools/heed.cpp $(TOOL_SRCS)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

# Test objects need doctest's header (Homebrew's is outside the compiler's default search path).
$(call obj,$(TEST_SRCS)): | $(DOCTEST)
$(call obj,$(TEST_SRCS)): BASEFLAGS += $(DOCTEST_I)
# The test programs' own code is compiled at -O1 where the build is at -O2: the suites (tests/),
# the exercises' checks and the self-test's answers. It mostly calls the library, which keeps -O2,
# and -O1 compiles it in about two thirds of the time (make test compiles some 120 such files from
# a fresh clone). No bit changes: without -ffast-math, no optimisation level changes IEEE arithmetic,
# and -ffp-contract=off forbids fusing. Other flags given (CXXFLAGS='-O0 -g', a sanitizer's) are kept.
TEST_CODE := $(TEST_SRCS) $(wildcard tests/exercises/selftest.cpp tests/exercises/wrong/*.cpp tests/exercises/refused/*.cpp \
  exercises/check/*.cpp)
$(call obj,$(TEST_CODE)): CXXFLAGS := $(patsubst -O2,-O1,$(CXXFLAGS))
$(TESTS): $(call obj,$(TEST_SRCS)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

# heed-faults, the test program that interrupts heed at chosen points (tests/faults/heed_faults.cpp):
# heed's own objects, with tools/heed.cpp compiled once more with its main renamed heed_main. The
# command-line tests run it, so it is built with the suites (heed itself holds no test hook).
FAULTS := $(if $(WINDOWS_TARGET),,$(if $(HEED),$(BUILD)/heed-faults))  # (POSIX signals: not on Windows)
$(BUILD)/obj/tests/faults/heed_main.o: tools/heed.cpp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(BASEFLAGS) $(CXXFLAGS) -Dmain=heed_main -c $< -o $@
$(BUILD)/heed-faults: $(call obj,tests/faults/heed_faults.cpp) $(BUILD)/obj/tests/faults/heed_main.o \
    $(call obj,$(TOOL_SRCS)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)
$(TESTS): | $(FAULTS)

.SECONDEXPANSION:
# A chapter's program: its main.cpp compiled to an object, then linked (make yours links the same
# object on the reader's own heed).
# (Only the objects of $^: builds made before this rule list sources and headers there too.)
$(BUILD)/tutorial-%: $$(call obj,$$(wildcard tutorials/$$*_*/main.cpp)) $(LIB)
	$(CXX) $(CXXFLAGS) $(filter %.o %.a,$^) -o $@ $(LDFLAGS)

# make test installs doctest when it is missing, saying first what it installs and why, and how
# (sudo asks for a password only after that).
$(DOCTEST):
	@if [ "$$(uname -s)" = Darwin ]; then \
	   echo "heed: doctest is missing; install it with Homebrew: brew install doctest" >&2; exit 1; fi; \
	 if ! command -v apt-get >/dev/null 2>&1; then \
	   echo "heed: doctest is missing; install your system's doctest package (doctest/doctest.h)" >&2; exit 1; fi; \
	 if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	 else echo "heed: doctest is missing; install it with: apt-get install doctest-dev (as root)" >&2; exit 1; fi; \
	 echo "heed: the tests need doctest (the test framework, one header: doctest/doctest.h), which is missing."; \
	 echo "heed: installing Debian's doctest-dev: $${SUDO:+$$SUDO }apt-get install doctest-dev$${SUDO:+ (sudo may ask for your password)}"; \
	 $$SUDO apt-get install -y -qq doctest-dev >/dev/null 2>&1 || \
	 { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq doctest-dev; } || \
	 { echo "heed: could not install doctest-dev; run: apt-get install doctest-dev" >&2; exit 1; }

doctest: $(DOCTEST)

# Tests run from the repository root: chapter checks read tutorials/ and run build/tutorial-NN.
# Quiet: failures in full, then doctest's summary, then what the skipped cases are.
# In the repository (with the exercises' self-test), the exercises' suite runs here and, beside it on
# the other core, every other suite in a class's edition (make student-edition, exercises/README.md)
# built in build/student-edition from these objects: so the edition is known to work, and no test
# runs twice. The last doctest summary is the edition's, every suite but the exercises'.
# (make install's float half and the precision mismatch are tested by make test-float, which
# builds the float library: make test does not build it.)
test: $(TESTS) $(CHAPTER_BINS) $(HEED)
ifneq ($(EX_FULL),)
	@$(MAKE) --no-print-directory student-edition-ready
	@echo "make test: two processes at once, one per core; each one's report is printed when both are done"
	@mkdir -p $(BUILD)/test-logs
	@$(TESTS) --no-intro -ts=exercises >$(BUILD)/test-logs/exercises.log 2>&1 & ex=$$!; \
	 $(MAKE) --no-print-directory -C $(EDITION) test >$(BUILD)/test-logs/edition.log 2>&1; ed=$$?; \
	 wait $$ex; ex=$$?; \
	 echo "== $(TESTS): the exercises' suite (self-test, results document, grading script, syllabus, your own heed)"; \
	 cat $(BUILD)/test-logs/exercises.log; \
	 echo "== $(EDITION): a class's edition; its make test runs every other suite"; \
	 cat $(BUILD)/test-logs/edition.log; \
	 [ $$ex -eq 0 ] && [ $$ed -eq 0 ]
else
	@echo "build/tests: every suite (build/tests -ts='ch05*' runs one chapter's)"
	@$(TESTS) --no-intro
	@echo "Skipped on purpose: the long chapter runs (make check-chapters) and the kernel timings,"
	@echo "which measure and do not check (build/tests -ts='bench_gemm,bench_fused' --no-skip)."
endif

# The long chapter runs (output-full blocks): minutes, so CI runs them, not make test.
# Two processes at once, one per core: the longest chapter (CHECK_APART) beside all the others
# (2026-12-05, quiet: chapter 13's long runs 695 s; every other chapter and the two checks of your
# own heed 412 s, chapter 11 78 s of it; each chapter's time is in the logs); each one's report is
# printed when both are done. The chapters' tests run build/heed too.
CHECK_APART ?= 13
check-chapters: $(TESTS) $(CHAPTER_BINS) $(HEED)
	@mkdir -p $(BUILD)/check-chapters
	@HEED_CHAPTERS=$(CHECK_APART) $(TESTS) -ts=chapters_full --no-skip --duration=true >$(BUILD)/check-chapters/apart.log 2>&1 & apart=$$!; \
	 HEED_CHAPTERS_EXCEPT=$(CHECK_APART) $(TESTS) -ts=chapters_full --no-skip --duration=true >$(BUILD)/check-chapters/rest.log 2>&1; rest=$$?; \
	 wait $$apart; apart=$$?; \
	 echo "== chapters $(CHECK_APART)"; cat $(BUILD)/check-chapters/apart.log; \
	 echo "== every other chapter"; cat $(BUILD)/check-chapters/rest.log; \
	 [ $$apart -eq 0 ] && [ $$rest -eq 0 ]

# The chapters' figures, drawn by heed's viz/ code and committed beside the text: quick ones by
# `tutorial-NN figures DIR`, the others copied from the long runs' build/chNN/ (make
# check-chapters runs those). make test and check-chapters hold the committed files to them.
QUICK_FIGURES := 02_autograd 03_gradient_checking 05_recurrent_cells 06_seq2seq 07_additive_attention \
                 12_attention_zoo 04_classifiers 08_multiplicative_attention 13_transformer
figures: $(CHAPTER_BINS)
	@set -e; for c in $(QUICK_FIGURES); do $(BUILD)/tutorial-$${c%%_*} figures tutorials/$$c; done
	@$(BUILD)/tutorial-09 untrained --out tutorials/09_attention_matrices >/dev/null
	@for f in tutorials/*/*.svg; do d=$$(basename $$(dirname $$f)); n=$${d%%_*}; \
	  if [ -f $(BUILD)/ch$$n/$$(basename $$f) ]; then cp $(BUILD)/ch$$n/$$(basename $$f) $$f; fi; done

# The demo: Bahdanau attention learns to reverse sequences of 5-12 symbols (about a minute),
# then is scored by length (16 and 20 are longer than any it saw) and shows where it looked.
# The encoder is bidirectional, as the paper's, so the attention lies on the anti-diagonal
# (a one-way encoder's peaks sit one position to its right: chapters 07 and 09).
DEMO := $(BUILD)/demo.safetensors
run: $(BUILD)/heed
	$(BUILD)/heed train --task reverse --model additive --bidirectional --min-len 5 --max-len 12 --steps 1500 --save $(DEMO)
	$(BUILD)/heed eval --load $(DEMO) --lengths 5,8,12,16,20 --samples 200
	$(BUILD)/heed predict --load $(DEMO) "3 1 4 1 5 9 2 6 5 3"
	@echo "The model is in $(DEMO). Ask it more: $(BUILD)/heed predict --load $(DEMO) \"7 7 0 4 2\""

tutorials: $(CHAPTER_BINS)
	@set -e; for t in $(CHAPTER_BINS); do echo "== $$t $(ARGS)"; $$t $(ARGS); done

tutorial-%: $(BUILD)/tutorial-%
	$< $(ARGS)

# Every benchmark model of docs/models.md at configurations S and M, one process each (so that each
# peak RSS is its own). tools/bench_vs_pytorch.sh runs the PyTorch reference beside it.
BENCH_MODELS ?= plain additive general dot
BENCH_CONFIGS ?= S M
bench: $(BUILD)/heed
	@set -e; for c in $(BENCH_CONFIGS); do for m in $(BENCH_MODELS); do \
	  $(BUILD)/heed bench --config $$c --model $$m; done; done

# The float build: the same sources with heed::real = float (-DHEED_REAL_FLOAT, tensor/real.h),
# in build-float/ (its objects never mix with build/'s doubles). Its kernels take 8 floats a vector
# where the default takes 4 doubles, and it writes F32 checkpoints. `build-float/heed bench` times
# it. Its tests skip, with the reason, what only double can hold: gradient checks (chapter 03),
# bit-identical golden hashes and the chapters' printed outputs.
# (+: a sub-make, which shares this make's jobs, also under make -n.)
FLOAT_MAKE   = $(MAKE) BUILD=$(FLOAT_BUILD) CXXFLAGS="$(CXXFLAGS) -DHEED_REAL_FLOAT"
float: | $(DOCTEST)
	+$(FLOAT_MAKE) all

# ---- The program alone: make heed (build/heed) and make heed-float (build-float/heed), without
# the tests and chapters that plain make also builds.
heed: $(BUILD)/heed
heed-float:
	+$(FLOAT_MAKE) $(FLOAT_BUILD)/heed
# The float library, for make install and its test (a sub-make: its objects are build-float's).
ifneq ($(BUILD),$(FLOAT_BUILD))
.PHONY: $(FLOAT_LIB)  # (the sub-make decides whether anything is to be done)
$(FLOAT_LIB):
	+@$(FLOAT_MAKE) --no-print-directory $(FLOAT_LIB)
endif
# ---- (end of the program alone)

# ---- heed as a library: make install [PREFIX=/usr/local] [DESTDIR=staging folder]
# writes, under $(DESTDIR)$(PREFIX):
#   include/heed/tensor/, autograd/, nn/, models/, io/, viz/   the library's headers, each
#       #include "nn/linear.h" rewritten as #include "heed/nn/linear.h" (a program's own nn/ or io/
#       folder cannot be taken for heed's); a program includes <heed/nn/linear.h>
#   lib/libheed.a, lib/libheed-float.a                  the library, reals double and float
#   lib/pkgconfig/heed.pc, heed-float.pc                 the flags a program needs:
#       pkg-config --cflags --libs heed   (C++20, -ffp-contract=off, -I, -L, -l; the float one adds
#       -DHEED_REAL_FLOAT). docs/library.md shows a program built with it; examples/ has two.
# The libraries are built as make builds build/ (CXXFLAGS; ARCH: the instruction set of this machine).
# make uninstall removes exactly these files, then the folders under include/heed and those install
# made (include/heed/.made-folders lists them) if they are empty. PREFIX may hold any character but
# a newline: the shell gets it as one quoted word, and the pkg-config files escape it.
PREFIX  ?= /usr/local
DESTDIR ?=
# (models/ with its two folders, the tasks and the analysis, each installed as include/heed/models/tasks/...;
# a folder before the folder that holds it, for uninstall's rmdir.)
INSTALL_DIRS    := tensor autograd nn models/tasks models/analysis models io viz
# The public headers (docs/library.md): heed.h, the whole API in one include, at the top of
# include/heed ("./": the recipe makes each header's folder, here include/heed itself), and every
# header of the folders but the internals below, which a program never includes: the kernels,
# the command line's own helpers and the film's machinery. heed.h includes each public one.
INSTALL_INTERNAL := tensor/gemm.h tensor/kernels.h tensor/math.h tensor/simd.h tensor/vmath.h nn/fused_cells.h \
  io/decimal.h io/os.h io/parse.h io/paths.h models/analysis/watch.h viz/film_page.h viz/sweep_report.h
INSTALL_HEADERS := ./heed.h $(filter-out $(INSTALL_INTERNAL),$(sort $(wildcard $(addsuffix /*.h,$(INSTALL_DIRS)))))
INSTALL_TO       = $(DESTDIR)$(PREFIX)
# PREFIX and the install folder as one word each to the shell, single-quoted ('it'\''s').
PREFIX_WORD      = '$(subst ','\'',$(PREFIX))'
INSTALL_TO_WORD  = '$(subst ','\'',$(INSTALL_TO))'
# Each install recipe's start: `to`, the folder; made_dirs DIR, mkdir -p that adds the folders it
# makes to $$made, one a line, which the recipe appends to include/heed/.made-folders.
install_sh = set -e; to=$(INSTALL_TO_WORD); nl=$$(printf '\nx'); nl=$${nl%x}; made=; \
  made_dirs() { [ -d "$$1" ] || { made_dirs "$$(dirname "$$1")"; mkdir "$$1"; made="$$made$$1$$nl"; }; }
made_record = printf '%s' "$$made" >>"$$to/include/heed/.made-folders"
# The sed program that rewrites a header's includes of heed's own folders.
INSTALL_REWRITE := s,^([[:space:]]*\#[[:space:]]*include[[:space:]]*")($(subst $(eval) ,|,$(INSTALL_DIRS)))/,\1heed/\2/,
# $(call pkg_config,NAME,DESCRIPTION,EXTRA CFLAGS): a pkg-config file's text, lines as printf's arguments.
pkg_config = "prefix=$$(printf '%s\n' $(PREFIX_WORD) | sed 's/[[:space:]\"'\'']/\\&/g')" 'includedir=$${prefix}/include' 'libdir=$${prefix}/lib' '' 'Name: $(1)' \
  'Description: heed, an autodiff framework that teaches attention ($(2))' 'Version: 0.3' \
  'Cflags: -std=c++20 -ffp-contract=off$(3) -I$${includedir}' 'Libs: -L$${libdir} -l$(1)'
# make install is its three parts: the headers, then each library with its pkg-config file
# (make install-double or install-float installs the headers and one of them).
install: install-double install-float
install-headers:
	@$(install_sh); made_dirs "$$to/include/heed"; $(made_record); \
	 for h in $(INSTALL_HEADERS); do \
	   mkdir -p "$$to/include/heed/$${h%/*}"; \
	   sed -E '$(INSTALL_REWRITE)' "$$h" >"$$to/include/heed/$$h"; chmod 644 "$$to/include/heed/$$h"; \
	 done; \
	 echo "installed in $$to: include/heed/ ($(words $(INSTALL_HEADERS)) headers)"
# $(call install_lib,LIBRARY,NAME,DESCRIPTION,EXTRA CFLAGS): LIBRARY as lib/libNAME.a, and NAME.pc.
install_lib = $(install_sh); made_dirs "$$to/lib/pkgconfig"; $(made_record); \
  cp $(1) "$$to/lib/lib$(2).a"; chmod 644 "$$to/lib/lib$(2).a"; \
  printf '%s\n' $(call pkg_config,$(2),$(3),$(4)) >"$$to/lib/pkgconfig/$(2).pc"; \
  echo "installed in $$to: lib/lib$(2).a, lib/pkgconfig/$(2).pc ($(3))"
install-double: $(LIB) install-headers
	@$(call install_lib,$(LIB),heed,reals are double)
install-float: $(FLOAT_LIB) install-headers
	@$(call install_lib,$(FLOAT_LIB),heed-float,reals are float, -DHEED_REAL_FLOAT)
uninstall:
	@to=$(INSTALL_TO_WORD); made=$$(cat "$$to/include/heed/.made-folders" 2>/dev/null); \
	 rm -f $(foreach h,$(INSTALL_HEADERS),"$$to/include/heed/$(h)") "$$to/lib/libheed.a" "$$to/lib/libheed-float.a" \
	   "$$to/lib/pkgconfig/heed.pc" "$$to/lib/pkgconfig/heed-float.pc" "$$to/include/heed/.made-folders"; \
	 for d in $(INSTALL_DIRS); do rmdir "$$to/include/heed/$$d" 2>/dev/null; done; \
	 rmdir "$$to/include/heed" 2>/dev/null; \
	 printf '%s\n' "$$made" | LC_ALL=C sort -r | while IFS= read -r d; do [ -z "$$d" ] || rmdir "$$d" 2>/dev/null; done; \
	 echo "removed heed's files from $$to"
# ---- (end of heed as a library)

include mk/qa.mk
include mk/windows.mk

clean:
	rm -rf $(BUILD) $(FLOAT_BUILD) build-clang build-libcxx build-gcc11 build-aarch64 build-windows build-O0 $(YOURS)

# For clangd, VS Code and other editors: one entry per source file with the flags it builds with.
EDITOR_SRCS = $(LIB_SRCS) $(KERNEL_SRCS) $(TEST_SRCS) tools/heed.cpp $(TOOL_SRCS) $(sort $(wildcard tutorials/*/*.cpp)) \
  $(sort $(wildcard exercises/*/*.cpp exercises/solutions/*/*.cpp tests/exercises/selftest.cpp tests/exercises/wrong/*.cpp))
compile_commands.json:
	@{ printf '['; sep=; for f in $(EDITOR_SRCS); do \
	  printf '%s\n  {"directory": "%s", "file": "%s", "command": "%s %s %s -c %s"}' "$$sep" "$(CURDIR)" "$$f" \
	    "$(CXX)" "$(filter-out -MMD -MP,$(BASEFLAGS))" "$(CXXFLAGS)" "$$f"; sep=,; done; printf '\n]\n'; } > $@
	@echo "wrote $@ ($(words $(EDITOR_SRCS)) files)"

# Applies .clang-format to every C++ file of the repository, in place.
format:
	@command -v clang-format >/dev/null || { echo "heed: clang-format is missing; apt-get install clang-format" >&2; exit 1; }
	clang-format -i $$(git ls-files '*.cpp' '*.h' 2>/dev/null || find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.h' \) -print)

# The flags make runs with (tests check the parallel default).
show-makeflags:
	@echo "$(MAKEFLAGS)"

help:
	@sed -n 's/^#   \(make .*\)/\1/p' Makefile

# (not the .d files of the class's edition that make test builds inside build/)
-include $(shell find $(BUILD) -path $(BUILD)/student-edition -prune -o -name '*.d' -print 2>/dev/null)
