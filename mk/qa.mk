# heed's quality checks, apart from the build (the Makefile includes this file; every target keeps
# its name: make sanitize, fuzz, test-float, test-clang, test-libcxx, test-gcc11, test-aarch64,
# same-bits). Each builds heed again in a folder of its own, by running make on the Makefile with
# another BUILD, CXX or CXXFLAGS, and then runs the tests or programs of that build. .ci/run runs
# them all. Nothing here compiles a file itself except the fuzzers (libFuzzer needs its own flags).

.PHONY: sanitize fuzz fuzz-toolchain test-float test-clang test-libcxx test-gcc11 test-aarch64 same-bits

# A doctest program's selected cases in SHARDS pieces (--first/--last of one shuffled order: the
# same seed in every piece, so the pieces are complementary), run JOBS at a time, the next piece
# starting as soon as one ends, so that a few long cases cannot leave one core idle. Prints each
# piece's summary (and the whole report of a piece that failed); fails if any piece failed.
#   $(call shards,ENV,PROGRAM,FILTERS,LOGDIR)   (bash: the recipe's SHELL must be bash)
SHARDS ?= 8
shards = rm -rf $(4); mkdir -p $(4); n=$$($(1) $(2) $(3) --count | sed -n 's/.*filters: *\([0-9]*\)$$/\1/p'); \
  [ "$${n:-0}" -gt 0 ] || { echo "$(2): no test case selected ($(3))" >&2; exit 1; }; \
  echo "$(2): $$n cases in $(SHARDS) pieces, $(JOBS) at a time"; \
  for i in $$(seq 1 $(SHARDS)); do \
    while [ $$(jobs -rp | wc -l) -ge $(JOBS) ]; do wait -n || true; done; \
    first=$$(( (i - 1) * n / $(SHARDS) + 1 )); last=$$(( i * n / $(SHARDS) )); [ $$last -ge $$first ] || continue; \
    { $(1) $(2) $(3) --order-by=rand --rand-seed=1 --first=$$first --last=$$last >$(4)/$$i.log 2>&1 || \
      echo "$$first-$$last" >$(4)/$$i.failed; } & \
  done; wait; \
  for i in $$(seq 1 $(SHARDS)); do \
    first=$$(( (i - 1) * n / $(SHARDS) + 1 )); last=$$(( i * n / $(SHARDS) )); \
    [ $$last -ge $$first ] || continue; \
    if [ -f $(4)/$$i.failed ]; then echo "== cases $$first-$$last: FAILED"; cat $(4)/$$i.log; \
    else echo "== cases $$first-$$last: $$(grep -E '^\[doctest\] assertions' $(4)/$$i.log)"; fi; \
  done; ! ls $(4)/*.failed >/dev/null 2>&1

# Sanitizers: the same sources rebuilt by clang++ (SAN_CXX) in build/sanitize (HEED_BUILD tells the
# tests where the programs are), then the whole suite (every chapter's quick run compared with its
# text included) in SHARDS pieces, JOBS at a time, and a short train/eval/predict. Built by clang, so that this one
# build also holds every file to a second compiler (make test-clang runs the suite at -O2 too).
# Every process writes its reports to build/sanitize/reports; one report file, or any failure,
# fails the target. SAN_CXX=g++ sanitizes with GCC's runtime instead. -g1: line tables only,
# enough for a report's stack to name files and lines, and much quicker to build than -g.
SAN_CXX   ?= $(CLANG)
SAN_BUILD := build/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LOG   := $(CURDIR)/$(SAN_BUILD)/reports
SAN_ENV   := HEED_BUILD=$(SAN_BUILD) \
  ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:log_path=$(SAN_LOG)/asan \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(SAN_LOG)/ubsan
SAN_CLI   := $(SAN_BUILD)/cli
sanitize test-aarch64: SHELL := /bin/bash
sanitize: | $(DOCTEST)
	$(MAKE) BUILD=$(SAN_BUILD) CXX="$(SAN_CXX)" CXXFLAGS="-O1 -g1 $(ARCH) $(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
	  all $(if $(EX_FULL),$(SAN_BUILD)/exercise-selftest $(SAN_BUILD)/exercise-01)
	@rm -rf $(SAN_LOG) $(SAN_CLI) && mkdir -p $(SAN_LOG) $(SAN_CLI)
	@status=0; \
	 { $(call shards,$(SAN_ENV),$(SAN_BUILD)/tests,--no-intro,$(SAN_BUILD)/shards); } || status=1; \
	 echo "== heed train, eval, predict (sanitized)"; \
	 $(SAN_ENV) $(SAN_BUILD)/heed train --task reverse --model additive --min-len 2 --max-len 5 --embed 8 \
	   --hidden 16 --batch 8 --steps 40 --eval-samples 40 --save $(SAN_CLI)/m.safetensors >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed eval --load $(SAN_CLI)/m.safetensors --lengths 2,6 --samples 20 >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed predict --load $(SAN_CLI)/m.safetensors --svg $(SAN_CLI)/a.svg "3 1 4" >/dev/null || status=1; \
	 $(SAN_ENV) $(SAN_BUILD)/heed train --hidden 1000000000 2>/dev/null; [ $$? -eq 2 ] || status=1; \
	 if [ -n "$$(ls -A $(SAN_LOG))" ]; then cat $(SAN_LOG)/*; echo "sanitize: reports above" >&2; status=1; fi; \
	 if [ $$status -eq 0 ]; then echo "sanitize: clean (no ASan, LSan or UBSan report)"; fi; exit $$status

# ThreadSanitizer: the same sources rebuilt by clang++ -fsanitize=thread in build/tsan, then the
# threaded tests: the pool's own (tests/threads_test.cpp) and the thread-count same-bits test
# (tests/threads_same_bits_test.cpp, whose heed runs are this build's too: HEED_BUILD), chapter
# 02's graphs built on two threads, and a bench at configuration M on 3 threads.
# Any report, or any failure, fails the target. (Kept self-contained: it can move with sanitize.)
.PHONY: tsan
TSAN_BUILD := build/tsan
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
TSAN_LOG   := $(CURDIR)/$(TSAN_BUILD)/reports
TSAN_ENV   := HEED_BUILD=$(TSAN_BUILD) TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:log_path=$(TSAN_LOG)/tsan
# A test program of these suites alone (the whole suite under ThreadSanitizer would take long).
# (heed_cli, chapter_check and prose_numbers: the helpers that run heed; their own suites are not run.)
THREADED_TEST_SRCS := tests/main.cpp tests/heed_cli.cpp tests/chapter_check.cpp tests/prose_numbers.cpp \
  tests/threads_test.cpp tests/threads_same_bits_test.cpp tests/ch02_graph_safety_test.cpp
$(BUILD)/threaded-tests: $(call obj,$(THREADED_TEST_SRCS)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)
tsan: | $(DOCTEST)
	$(MAKE) BUILD=$(TSAN_BUILD) CXX="$(CLANG)" CXXFLAGS="-O1 -g1 $(ARCH) $(TSAN_FLAGS)" LDFLAGS="$(TSAN_FLAGS)" \
	  $(TSAN_BUILD)/threaded-tests $(TSAN_BUILD)/heed
	@rm -rf $(TSAN_LOG) && mkdir -p $(TSAN_LOG)
	@status=0; \
	 $(TSAN_ENV) $(TSAN_BUILD)/threaded-tests --no-intro -ts='threads,threads_same_bits,ch02_autograd' || status=1; \
	 echo "== heed bench --config M --threads 3 (under ThreadSanitizer)"; \
	 $(TSAN_ENV) $(TSAN_BUILD)/heed bench --config M --model additive --steps 1 --warmup 0 --threads 3 >/dev/null || status=1; \
	 if [ -n "$$(ls -A $(TSAN_LOG))" ]; then cat $(TSAN_LOG)/*; echo "tsan: reports above" >&2; status=1; fi; \
	 if [ $$status -eq 0 ]; then echo "tsan: clean (no ThreadSanitizer report)"; fi; exit $$status

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

# The kernel sets too (tensor/kernels.h picks one at run time, so every set is linked), each with
# its own instruction flags, as for the library.
FUZZ_KERNEL_OBJS := $(foreach s,$(KERNEL_SETS),$(patsubst %.cpp,$(FUZZ_BUILD)/obj/%.$(s).o,$(KERNEL_SRCS)))
define fuzz_kernel_rule
$(FUZZ_BUILD)/obj/tensor/%.$(1).o: tensor/%.cpp | fuzz-toolchain
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CXX) $$(BASEFLAGS) $$(filter-out -march=% -mtune=%,$$(FUZZ_FLAGS)) $$(KERNEL_FLAGS_$(1)) -DHEED_KERNEL_SET=$(1) -fsanitize=fuzzer-no-link -c $$< -o $$@
endef
$(foreach s,$(KERNEL_SETS),$(eval $(call fuzz_kernel_rule,$(s))))
# Kept between runs (make would otherwise delete them as intermediates and compile them all again).
.SECONDARY: $(FUZZ_OBJS) $(FUZZ_KERNEL_OBJS) $(foreach n,$(FUZZ_NAMES),$(FUZZ_BUILD)/obj/tests/fuzz/$(n)_fuzz.o)

$(FUZZ_BUILD)/%_fuzz: $(FUZZ_BUILD)/obj/tests/fuzz/%_fuzz.o $(FUZZ_OBJS) $(FUZZ_KERNEL_OBJS)
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

# (and build/'s library: the install suite's float case installs both, as make install does)
test-float: float $(LIB)
	@echo "$(FLOAT_BUILD)/tests: every suite, in float"
	@HEED_BUILD=$(FLOAT_BUILD) $(FLOAT_BUILD)/tests --no-intro
	@echo "Skipped in float, each test marked with its reason (tests/precision.h): gradient checks, the"
	@echo "golden hashes and bytes of double arithmetic, the chapters' printed outputs, PyTorch float64 to 1e-12."

# Other compilers and architectures, each in a folder of its own (objects never mix with build/).
# HEED_BUILD tells the tests where the programs are; HEED_RUN what runs them (qemu for ARM64).
CLANG       ?= clang++
AARCH64_CXX ?= aarch64-linux-gnu-g++
QEMU        ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
test-clang: | $(DOCTEST)
	$(MAKE) BUILD=build-clang CXX="$(CLANG)" all $(if $(EX_FULL),build-clang/exercise-selftest build-clang/exercise-01)
	HEED_BUILD=build-clang build-clang/tests

# The oldest toolchains heed supports, each in its own folder and running the whole suite: clang++
# with libc++, the C++ library of macOS's Apple clang (Debian: clang, libc++-14-dev,
# libc++abi-14-dev), and g++ 11, Ubuntu 22.04's and so WSL's (Debian: g++-11). heed uses no
# standard-library feature that either lacks; these targets are what holds it to that. Nothing is
# installed here: a missing toolchain stops with the packages to install (.ci/run installs them).
# The exercises' suite runs whole there too, make yours and make yours-test included (a student's
# Mac links their own heed with clang++ and libc++): HEED_MAKES tells the tests that the make they
# run builds this folder with its compiler (CXX, in their environment), as make test's does.
LIBCXX_CXX ?= clang++ -stdlib=libc++
GCC11_CXX  ?= g++-11
# $(call need_toolchain,COMPILER,PACKAGES): stops with a message unless COMPILER builds and links
# a C++20 program.
need_toolchain = printf '\043include <version>\nint main() { return 0; }\n' >/tmp/heed-probe-$$$$.cpp; \
  $(1) -std=c++20 /tmp/heed-probe-$$$$.cpp -o /tmp/heed-probe-$$$$ >/dev/null 2>&1; ok=$$?; \
  rm -f /tmp/heed-probe-$$$$ /tmp/heed-probe-$$$$.cpp; \
  [ $$ok -eq 0 ] || { echo "heed: '$(1)' cannot build a C++20 program; on Debian or Ubuntu: sudo apt-get install $(2)" >&2; exit 1; }
test-libcxx: | $(DOCTEST)
	@$(call need_toolchain,$(LIBCXX_CXX),clang libc++-14-dev libc++abi-14-dev)
	$(MAKE) BUILD=build-libcxx CXX="$(LIBCXX_CXX)" all $(if $(EX_FULL),build-libcxx/exercise-selftest build-libcxx/exercise-01 yours-prerequisites)
	HEED_BUILD=build-libcxx HEED_MAKES=1 CXX="$(LIBCXX_CXX)" build-libcxx/tests
test-gcc11: | $(DOCTEST)
	@$(call need_toolchain,$(GCC11_CXX),g++-11)
	$(MAKE) BUILD=build-gcc11 CXX="$(GCC11_CXX)" all $(if $(EX_FULL),build-gcc11/exercise-selftest build-gcc11/exercise-01 yours-prerequisites)
	HEED_BUILD=build-gcc11 HEED_MAKES=1 CXX="$(GCC11_CXX)" build-gcc11/tests

# Emulation is tens of times slower, so ARM64 runs what can tell two machines apart: the kernels,
# every gradient check and numerical test, the fixed-seed checkpoint hashes and the CLI, in SHARDS
# pieces (8; the shards macro above), JOBS qemu processes at a time (one per core). Left out, as minutes each under qemu: the long trainings (learning,
# alignment, tagger, threading), the chapter programs (their outputs are the x86 build's, byte for
# byte, as make same-bits shows for a training), the exercises' self-test, and the PyTorch loader
# (x86 Python reading the same bytes). And heed bench --sweep's run, whose heed starts heed again:
# a child of an emulated program runs natively unless binfmt_misc hands it to qemu.
AARCH64_SKIP ?= learning:*,alignment:*,*few hundred steps*,tagger:*,*another thread*,chapter *,heed bench --sweep: a point*
AARCH64_TESTS ?= -tce='$(AARCH64_SKIP)' -tse='exercises,ch04_pytorch,chapter_check'
test-aarch64: | $(DOCTEST)
	$(MAKE) BUILD=build-aarch64 CXX="$(AARCH64_CXX)" build-aarch64/tests build-aarch64/heed
	@$(call shards,HEED_BUILD=build-aarch64 HEED_RUN="$(QEMU)" $(QEMU),build-aarch64/tests,$(AARCH64_TESTS) --no-intro,build-aarch64/shards)

# The promise across machines: the same training, byte for byte the same checkpoint. The clang++
# program is build-clang/heed (-O2), or any other given as SAME_BITS_CLANG: CI gives make
# sanitize's (clang++ -O1 under ASan and UBSan), which it has built already. The clang++ and
# libc++ program is make test-libcxx's (built here if missing).
SAME_BITS_RUN := train --task reverse --model additive --min-len 3 --max-len 8 --embed 16 --hidden 32 \
  --batch 16 --steps 200 --seed 7 --eval-samples 100
SAME_BITS_CLANG ?= build-clang/heed
same-bits: $(BUILD)/heed
	$(if $(filter build-clang/heed,$(SAME_BITS_CLANG)),$(MAKE) BUILD=build-clang CXX="$(CLANG)" build-clang/heed,\
	  @test -x $(SAME_BITS_CLANG) || { echo "same-bits: $(SAME_BITS_CLANG) is not built" >&2; exit 1; })
	@$(call need_toolchain,$(LIBCXX_CXX),clang libc++-14-dev libc++abi-14-dev)
	$(MAKE) BUILD=build-libcxx CXX="$(LIBCXX_CXX)" build-libcxx/heed
	$(MAKE) BUILD=build-aarch64 CXX="$(AARCH64_CXX)" build-aarch64/heed
	@mkdir -p $(BUILD)/same-bits
	$(BUILD)/heed $(SAME_BITS_RUN) --save $(BUILD)/same-bits/gxx.safetensors >/dev/null
	$(SAME_BITS_CLANG) $(SAME_BITS_RUN) --save $(BUILD)/same-bits/clang.safetensors >/dev/null
	build-libcxx/heed $(SAME_BITS_RUN) --save $(BUILD)/same-bits/libcxx.safetensors >/dev/null
	$(QEMU) build-aarch64/heed $(SAME_BITS_RUN) --save $(BUILD)/same-bits/aarch64.safetensors >/dev/null
	cmp $(BUILD)/same-bits/gxx.safetensors $(BUILD)/same-bits/clang.safetensors
	cmp $(BUILD)/same-bits/gxx.safetensors $(BUILD)/same-bits/libcxx.safetensors
	cmp $(BUILD)/same-bits/gxx.safetensors $(BUILD)/same-bits/aarch64.safetensors
	@sha256sum $(BUILD)/same-bits/*.safetensors
	@echo "same-bits: x86-64 g++ ($(BUILD)/heed), x86-64 clang++ ($(SAME_BITS_CLANG)), x86-64 clang++ with libc++ (build-libcxx/heed) and ARM64 wrote byte-identical checkpoints"

