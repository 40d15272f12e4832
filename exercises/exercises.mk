# Exercises (included by the Makefile): exercises/NN_topic/ holds what the student writes,
# exercises/check/NN_check.cpp its checks, exercises/solutions/ the answers, and
# tests/exercises/ the wrong answers the checks must reject.
#   make exercise-NN     build your exercises of chapter NN against the library and check them
#   make exercises       check every chapter's exercises and print a scoreboard
#     SEED=N             draw every check's random inputs from the grader's seed N
#     JSON=FILE          also write the results as one JSON document (exercises/README.md, "Results")
#     CHECKS=DIR         add a grader's own checks, DIR/NN_*.cpp (programs build/grader-exercise-NN)
EX_DIRS      := $(sort $(wildcard exercises/[0-9][0-9]_*))
EX_NUMBERS   := $(foreach d,$(EX_DIRS),$(firstword $(subst _, ,$(notdir $(d)))))
EX_STUDENT   := $(foreach d,$(EX_DIRS),$(wildcard $(d)/*.cpp))
EX_CHECKS    := $(wildcard exercises/check/[0-9][0-9]_check.cpp)
EX_WRONG     := $(wildcard tests/exercises/wrong/[0-9][0-9]_wrong.cpp)
EX_SELFTEST  := $(BUILD)/exercise-selftest
EX_CHECKER   := exercises/check/main.cpp exercises/check/check.cpp exercises/check/objects.cpp exercises/check/trainer.cpp
# Answers that call their exercise's reference: compiled for the self-test to read, never linked.
EX_REFUSED   := $(wildcard tests/exercises/refused/[0-9][0-9]_refused.cpp)
# The programs make exercises runs: with a grader's checks (CHECKS=DIR), other programs, so that
# a student's build/exercise-NN never holds them.
EX_PROGRAM   := $(BUILD)/$(if $(CHECKS),grader-)exercise-
grader_checks = $(patsubst $(CHECKS)/%.cpp,$(BUILD)/obj/grader-checks/%.o,$(wildcard $(CHECKS)/$(1)_*.cpp))

.PHONY: exercises

# An untouched exercise does not use its parameters yet. (The solutions are compiled inside the
# wrong-answer files, tests/exercises/wrong/NN_wrong.cpp, in namespace heed::solution, so that one
# self-test binary holds both them and the untouched exercise files.)
$(BUILD)/obj/exercises/%.o: BASEFLAGS += -Wno-unused-parameter
# Each function in a section of its own, so that the checker can tell which function calls what
# (exercises/check/objects.h); objects built before this line changed are rebuilt.
# (The self-test's own files in tests/exercises/, not the suites beside them.)
$(BUILD)/obj/exercises/%.o $(BUILD)/obj/tests/exercises/wrong/%.o $(BUILD)/obj/tests/exercises/refused/%.o \
  $(BUILD)/obj/tests/exercises/selftest.o: BASEFLAGS += -ffunction-sections
$(call obj,$(EX_STUDENT) $(EX_WRONG) $(EX_REFUSED)): exercises/exercises.mk
# The answers that hand their exercise to the library leave most parameters unused.
$(call obj,$(EX_REFUSED)): BASEFLAGS += -Wno-unused-parameter
# A file saved while it is being compiled (the first make exercise-NN also builds the library,
# which takes minutes) must not leave an object that looks newer than the save: make would keep
# it, compiled from the text before the save, and the check would report "not done yet" for code
# that is written. So the object gets the time its compile started, not the time it ended: a save
# during the compile leaves the source newer, and the next make compiles it again.
$(BUILD)/obj/exercises/%.o: exercises/%.cpp
	@mkdir -p $(dir $@)
	@touch $@.started
	$(CXX) $(BASEFLAGS) $(CXXFLAGS) -c $< -o $@ || { rm -f $@.started; exit 1; }
	@touch -r $@.started $@; rm -f $@.started
ifneq ($(CHECKS),)
$(BUILD)/obj/grader-checks/%.o: $(CHECKS)/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(BASEFLAGS) $(CXXFLAGS) -c $< -o $@
endif

.SECONDEXPANSION:
$(BUILD)/exercise-%: $$(call obj,$(EX_CHECKER) exercises/check/$$*_check.cpp $$(wildcard exercises/$$*_*/*.cpp)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

$(BUILD)/grader-exercise-%: $$(call obj,$(EX_CHECKER) exercises/check/$$*_check.cpp $$(wildcard exercises/$$*_*/*.cpp)) \
                              $$(call grader_checks,$$*) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

$(EX_SELFTEST): $(call obj,tests/exercises/selftest.cpp exercises/check/check.cpp exercises/check/objects.cpp \
                  exercises/check/trainer.cpp $(EX_CHECKS) $(EX_STUDENT) $(EX_WRONG)) $(LIB) $(call obj,$(EX_REFUSED))
	$(CXX) $(CXXFLAGS) $(filter-out $(call obj,$(EX_REFUSED)),$^) -o $@ $(LDFLAGS)

# make test runs the self-test (tests/exercises/exercises_test.cpp): solutions pass, stubs are not done,
# wrong answers are rejected, answers calling their references refused; and the results document
# and the grading script. A class's edition (below) has none of it: EX_FULL is empty there.
EX_FULL := $(wildcard tests/exercises/selftest.cpp)
ifneq ($(EX_FULL),)
test: $(EX_SELFTEST) $(BUILD)/exercise-01 exercise-checker
endif

# The check ran on the objects just built; a file saved during their compile is newer than its
# object (see above), and the report says so rather than leave "not done yet" unexplained.
exercise-%: $(BUILD)/exercise-%
	@$<; status=$$?; \
	 for f in $(wildcard exercises/$*_*/*.cpp); do \
	   if [ "$$f" -nt "$(BUILD)/obj/$${f%.cpp}.o" ]; then \
	     echo "$$f was saved while it was being compiled: this checked the text before the save; run make exercise-$* again"; \
	     status=1; fi; \
	 done; exit $$status

# Each chapter's program runs on its own (a chapter that does not compile costs only its own
# exercises); with JSON=FILE each writes its chapter's record, one line, and the records are
# joined into one document here.
exercises:
	@mkdir -p $(BUILD); rm -f $(BUILD)/exercises.score; status=0; \
	 for d in $(EX_DIRS); do n=$${d#exercises/}; n=$${n%%_*}; rm -f $(BUILD)/exercise-$$n.json; \
	   if $(MAKE) --no-print-directory -s $(EX_PROGRAM)$$n >$(BUILD)/exercise-$$n.log 2>&1; then \
	     $(EX_PROGRAM)$$n $(if $(SEED),--seed $(SEED)) $(if $(JSON),--strict --json $(BUILD)/exercise-$$n.json) \
	       >$(BUILD)/exercise-$$n.out || status=1; cat $(BUILD)/exercise-$$n.out; \
	     tail -n 1 $(BUILD)/exercise-$$n.out >>$(BUILD)/exercises.score; \
	   else \
	     cat $(BUILD)/exercise-$$n.log; status=1; \
	     echo "$$n: does not compile (the compiler's messages are above)" | tee -a $(BUILD)/exercises.score; \
	     printf '\n{"chapter": "%s", "folder": "%s", "compiles": false, "message": "does not compile; the compiler'"'"'s messages are in %s", "counts": {"passed": 0, "not_done": 0, "wrong": 0, "refused": 0, "total": 0}, "exercises": []}\n\n' \
	       $$n $${d%/} $(BUILD)/exercise-$$n.log >$(BUILD)/exercise-$$n.json; \
	   fi; \
	 done; \
	 echo; echo "scoreboard"; sed 's/^/  /' $(BUILD)/exercises.score; \
	 awk '/ of [0-9]+ passed/ { p += $$2; n += $$4 } END { printf "  all: %d of %d passed\n", p, n }' $(BUILD)/exercises.score; \
	 MODE=score BUILD=$(BUILD) bash exercises/yours/yours.sh; \
	 if [ -n "$(JSON)" ]; then \
	   { echo '{"format": "heed-exercises 1", "seed": $(if $(SEED),$(SEED),null), "chapters": ['; \
	     for d in $(EX_DIRS); do n=$${d#exercises/}; n=$${n%%_*}; \
	       [ -f $(BUILD)/exercise-$$n.json ] && sed '1d;$$d' $(BUILD)/exercise-$$n.json | sed 's/,$$//'; done | \
	       awk 'NR > 1 { printf ",\n" } { printf "%s", $$0 } END { printf "\n" }'; \
	     echo ']}'; } >"$(JSON)" && echo "results written to $(JSON)"; \
	 fi; \
	 if [ $$status -ne 0 ]; then echo "exercises: not all passed; make exercise-NN checks chapter NN (exercises/NN_*/README.md)"; fi; \
	 exit $$status

# For tools/grade_exercises.sh, which grades a folder of students' copies: the library and the
# checker's objects (with a grader's checks, CHECKS=DIR), built once for the whole class, and the
# commands that compile an answer and link a chapter's checker.
.PHONY: exercise-checker exercise-commands
exercise-checker: $(LIB) $(call obj,$(EX_CHECKER) $(EX_CHECKS)) $(foreach n,$(EX_NUMBERS),$(call grader_checks,$(n)))
exercise-commands:
	@echo 'compile $(CXX) $(filter-out -MMD -MP,$(BASEFLAGS)) $(CXXFLAGS) -Wno-unused-parameter -ffunction-sections'
	@echo 'link $(CXX) $(CXXFLAGS)'
	@echo 'libs $(LDFLAGS)'
	@echo 'build $(BUILD)'

# ---- a class's edition
# make student-edition DIR=folder writes the repository as a class hands it out: every file of the
# checkout (git's list, with files not yet committed; without git, every file but the builds) except
# the solutions, the wrong answers and the self-test (with the tests of your own heed, which build on
# the solutions: all of them in tests/exercises/). DIR must not exist: nothing is overwritten. The names go through
# NUL-separated lists, so a file of any name is kept; the build folders are left out by name.
EDITION_LEAVES_OUT := exercises/solutions/% tests/exercises/%
EDITION_BUILDS := $(sort $(BUILD) $(FLOAT_BUILD) build-clang build-libcxx build-gcc11 build-aarch64 build-O0 $(YOURS))
.PHONY: student-edition student-edition-test student-edition-ready
student-edition:
	@if [ -z "$(DIR)" ]; then echo "usage: make student-edition DIR=folder (a folder that does not exist yet)" >&2; exit 2; fi; \
	 if [ -e "$(DIR)" ] || [ -L "$(DIR)" ]; then echo "student-edition: $(DIR) exists; name a new folder (nothing is overwritten)" >&2; exit 2; fi; \
	 if [ -z "$(EX_FULL)" ]; then echo "student-edition: this is an edition already (no tests/exercises/)" >&2; exit 2; fi; \
	 { git ls-files -z --cached --others --exclude-standard 2>/dev/null || \
	   find . \( -path ./.git $(foreach b,$(EDITION_BUILDS),-o -path ./$(b)) \) -prune -o -type f -print0; } | \
	   xargs -0 sh -c 'for f; do f=$${f#./}; [ -f "$$f" ] && printf "%s\0" "$$f"; done; true' sh | LC_ALL=C sort -zu | \
	   grep -zv -e '^exercises/solutions/' -e '^tests/exercises/' \
	     $(foreach b,$(EDITION_BUILDS),-e '^$(b)/') >$(BUILD)/student-edition.files || exit 1; \
	 mkdir -p "$(DIR)" && tar --null -cf - -T $(BUILD)/student-edition.files | tar -C "$(DIR)" -xf - && \
	 echo "student-edition: $(DIR) holds $$(tr -cd '\000' <$(BUILD)/student-edition.files | wc -c | tr -d ' ') files (no solutions, no self-test)"

# make test's check of the edition: one in $(BUILD)/student-edition, its make test run. The objects
# already built are copied in with their times (tar keeps them, and the sources' too), so that only
# what differs is built again: the test program, linked without the exercises' tests. The self-test's
# objects and programs (which hold the solutions) are left out.
EDITION := $(BUILD)/student-edition
# (make test runs the edition's suites beside the exercises' suite: student-edition-ready makes the
# edition, student-edition-test also runs it.)
student-edition-test: student-edition-ready
	@$(MAKE) --no-print-directory -C $(EDITION) test
student-edition-ready: $(TESTS) $(CHAPTER_BINS) $(HEED)
	@rm -rf $(EDITION) && mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory -s student-edition DIR=$(EDITION)
	@mkdir -p $(EDITION)/$(BUILD) && \
	 tar -C $(BUILD) --exclude=./obj/tests/exercises \
	   -cf - ./flags ./obj ./libheed.a $(if $(HEED),./heed) $(patsubst $(BUILD)/%,./%,$(CHAPTER_BINS)) | tar -C $(EDITION)/$(BUILD) -xf -
