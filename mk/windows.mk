# Windows without WSL (the Makefile includes this file): heed cross-built by MinGW-w64 (Debian:
# g++-mingw-w64-x86-64-posix) into build-windows/, and run under Wine (Debian: wine64), as
# test-aarch64 runs ARM64 under qemu. docs/building.md says how a student on Windows builds it
# with MSYS2's MinGW-w64; docs/testing.md what make test-windows runs and leaves out.
#   make windows        build-windows/heed.exe, its tests (tests.exe) and the chapter programs
#   make test-windows   the suites under Wine (and the CLI's suites driving heed.exe under Wine)
# The operating system's calls are io/os_windows.cpp and tools/signals_windows.cpp (the Makefile
# picks them when the compiler targets Windows, and links the programs statically, in binary).
# -O1: the same bits as -O2 (no optimisation level changes IEEE arithmetic without -ffast-math,
# and -ffp-contract=off), in two thirds of the compile time. -muse-unaligned-vector-move:
# GCC on Windows may keep 32-byte vectors on a stack aligned to 16 (GCC bug 54412); the assembler
# then writes the unaligned form of each vector move, the same arithmetic.

.PHONY: windows test-windows windows-toolchain
WINDOWS_CXX   ?= x86_64-w64-mingw32-g++-posix
WINE          ?= wine
WINDOWS_BUILD := build-windows
WINDOWS_FLAGS := -O1 -Wa,-muse-unaligned-vector-move
# The suites tests.exe holds: every test file that starts no process and includes no POSIX header
# (found by grep, so a new file joins when it qualifies). The others run a POSIX shell or its tools
# (sh, env, make, chmod, FIFOs, setpriv), or check a chapter's program: test-windows runs those of
# them that drive heed's programs natively, with the Windows programs under Wine (HEED_RUN).
WINDOWS_POSIX_ONLY := sys/wait\.h|heed_cli\.h|chapter_check\.h|unistd\.h|popen|std::system|geteuid|sys/stat\.h|fcntl\.h|signal|setenv
WINDOWS_TEST_SRCS := $(shell grep -LE '$(WINDOWS_POSIX_ONLY)' $(TEST_SRCS))
# doctest's one header, copied where the cross compiler looks (it does not search /usr/include,
# whose other headers are Linux's).
WINDOWS_DOCTEST := $(WINDOWS_BUILD)/include/doctest/doctest.h
WINDOWS_MAKE   = $(MAKE) BUILD=$(WINDOWS_BUILD) CXX="$(WINDOWS_CXX)" CXXFLAGS="$(WINDOWS_FLAGS)" \
  TEST_SRCS="$(WINDOWS_TEST_SRCS)" DOCTEST_I="-isystem $(WINDOWS_BUILD)/include"

# Stops with the packages to install when the cross compiler or Wine is missing.
windows-toolchain:
	@command -v $(firstword $(WINDOWS_CXX)) >/dev/null 2>&1 || \
	  { echo "heed: $(WINDOWS_CXX) is missing; on Debian or Ubuntu: sudo apt-get install g++-mingw-w64-x86-64-posix" >&2; exit 1; }
	@command -v $(firstword $(WINE)) >/dev/null 2>&1 || \
	  { echo "heed: $(WINE) is missing; on Debian or Ubuntu: sudo apt-get install wine64" >&2; exit 1; }

# MinGW's g++ writes NAME.exe for -o NAME: NAME is made a link to it, so that make finds its
# target built and the tests run $HEED_BUILD/heed as in every build (Wine runs a program by any name).
WINDOWS_PROGRAMS := heed tests $(notdir $(CHAPTER_BINS))
$(WINDOWS_DOCTEST): | $(DOCTEST)
	@mkdir -p $(dir $@) && cp $(DOCTEST) $@
windows: windows-toolchain $(WINDOWS_DOCTEST)
	+$(WINDOWS_MAKE) $(addprefix $(WINDOWS_BUILD)/,$(WINDOWS_PROGRAMS))
	@cd $(WINDOWS_BUILD) && for p in $(WINDOWS_PROGRAMS); do ln -sf $$p.exe $$p; done

# Wine keeps its own Windows (the prefix) in build-windows/wine: made by the first run (about 40 s),
# then reused. Its server is kept up through a whole target, so each program starts in a fraction
# of a second, then stopped.
WINE_PREFIX := $(CURDIR)/$(WINDOWS_BUILD)/wine
test-windows: export WINEPREFIX := $(WINE_PREFIX)
test-windows: export WINEDEBUG := -all
WINE_SERVER = $(dir $(shell command -v $(firstword $(WINE)) 2>/dev/null))wineserver

# Under Wine: tests.exe (the suites above) in one Wine session; then build/tests runs the chapters'
# quick runs (each compared with its chapter's text) with the Windows chapter programs; then
# tests/tools/windows_ctrl_c_test.sh (Ctrl-C saves, and the resumed run is byte-identical).
# Left out, and why: docs/testing.md, "Windows under Wine".
# (Chapter 09's program prints a path as Windows spells it, build/ch09\untrained.svg, where its text
# shows build/ch09/untrained.svg: left out until the chapter prints generic paths.)
WINDOWS_NATIVE_TESTS ?= -tc='chapter *' -tce='*full*,chapter 09 shows*,chapter exercises*'
test-windows: windows $(TESTS)
	@$(WINE_SERVER) -p 30 2>/dev/null || true
	@echo "== $(WINDOWS_BUILD)/tests.exe under Wine ($(words $(WINDOWS_TEST_SRCS)) of $(words $(TEST_SRCS)) test files: those that start no process)"
	@$(WINE) $(WINDOWS_BUILD)/tests.exe --no-intro
	@echo "== $(TESTS) running $(WINDOWS_BUILD)'s chapter programs under Wine (their quick outputs against the chapters' texts)"
	@HEED_BUILD=$(WINDOWS_BUILD) HEED_RUN="$(WINE)" $(TESTS) --no-intro $(WINDOWS_NATIVE_TESTS)
	@echo "== tests/tools/windows_ctrl_c_test.sh (Ctrl-C in Wine's console, then --resume)"
	@WINE="$(WINE)" bash tests/tools/windows_ctrl_c_test.sh $(WINDOWS_BUILD)
	@$(WINE_SERVER) -k 2>/dev/null || true

# make same-bits' training (mk/qa.mk) by build/heed and by the Windows program under Wine,
# byte-compared, on one thread (the thread pool's waits are slow under Wine; no thread count
# changes a bit). Not part of make same-bits and CI yet: see docs/testing.md.
.PHONY: same-bits-windows
same-bits-windows: export WINEPREFIX := $(WINE_PREFIX)
same-bits-windows: export WINEDEBUG := -all
same-bits-windows: export HEED_THREADS := 1
same-bits-windows: $(BUILD)/heed windows-toolchain
	+$(WINDOWS_MAKE) $(WINDOWS_BUILD)/heed && ln -sf heed.exe $(WINDOWS_BUILD)/heed
	@mkdir -p $(BUILD)/same-bits
	$(BUILD)/heed $(SAME_BITS_RUN) --save $(BUILD)/same-bits/gxx.safetensors >/dev/null
	$(WINE) $(WINDOWS_BUILD)/heed $(SAME_BITS_RUN) --save $(BUILD)/same-bits/windows.safetensors >/dev/null
	cmp $(BUILD)/same-bits/gxx.safetensors $(BUILD)/same-bits/windows.safetensors
	@sha256sum $(BUILD)/same-bits/gxx.safetensors $(BUILD)/same-bits/windows.safetensors
	@echo "same-bits-windows: x86-64 g++ ($(BUILD)/heed) and Windows (MinGW-w64, under Wine) wrote byte-identical checkpoints"
