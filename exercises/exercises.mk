# Exercises (included by the Makefile): exercises/NN_topic/ holds what the student writes,
# exercises/check/NN_check.cpp its checks, exercises/solutions/ the answers, and
# tests/exercises/ the wrong answers the checks must reject.
#   make exercise-NN     build your exercises of chapter NN against the library and check them
#   make exercises       check every chapter's exercises and print a scoreboard
EX_DIRS      := $(sort $(wildcard exercises/[0-9][0-9]_*))
EX_NUMBERS   := $(foreach d,$(EX_DIRS),$(firstword $(subst _, ,$(notdir $(d)))))
EX_STUDENT   := $(foreach d,$(EX_DIRS),$(wildcard $(d)/*.cpp))
EX_CHECKS    := $(wildcard exercises/check/[0-9][0-9]_check.cpp)
EX_WRONG     := $(wildcard tests/exercises/[0-9][0-9]_wrong.cpp)
EX_SELFTEST  := $(BUILD)/exercise-selftest

.PHONY: exercises

# An untouched exercise does not use its parameters yet. (The solutions are compiled inside the
# wrong-answer files, tests/exercises/NN_wrong.cpp, in namespace heed::solution, so that one
# self-test binary holds both them and the untouched exercise files.)
$(BUILD)/obj/exercises/%.o: BASEFLAGS += -Wno-unused-parameter

.SECONDEXPANSION:
$(BUILD)/exercise-%: $$(call obj,exercises/check/main.cpp exercises/check/check.cpp exercises/check/trainer.cpp exercises/check/$$*_check.cpp \
                       $$(wildcard exercises/$$*_*/*.cpp)) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

$(EX_SELFTEST): $(call obj,tests/exercises/selftest.cpp exercises/check/check.cpp exercises/check/trainer.cpp $(EX_CHECKS) $(EX_STUDENT) $(EX_WRONG)) \
                  $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

# make test runs the self-test (tests/exercises_test.cpp): solutions pass, stubs are not done,
# wrong answers are rejected.
test: $(EX_SELFTEST)

exercise-%: $(BUILD)/exercise-%
	@$<

exercises:
	@mkdir -p $(BUILD); rm -f $(BUILD)/exercises.score; status=0; \
	 for n in $(EX_NUMBERS); do \
	   if $(MAKE) --no-print-directory -s $(BUILD)/exercise-$$n >$(BUILD)/exercise-$$n.log 2>&1; then \
	     $(BUILD)/exercise-$$n >$(BUILD)/exercise-$$n.out || status=1; cat $(BUILD)/exercise-$$n.out; \
	     tail -n 1 $(BUILD)/exercise-$$n.out >>$(BUILD)/exercises.score; \
	   else \
	     cat $(BUILD)/exercise-$$n.log; status=1; \
	     echo "$$n: does not compile (the compiler's messages are above)" | tee -a $(BUILD)/exercises.score; \
	   fi; \
	 done; \
	 echo; echo "scoreboard"; sed 's/^/  /' $(BUILD)/exercises.score; \
	 awk '/ of [0-9]+ passed/ { p += $$2; n += $$4 } END { printf "  all: %d of %d passed\n", p, n }' $(BUILD)/exercises.score; \
	 if [ $$status -ne 0 ]; then echo "exercises: not all passed; make exercise-NN checks chapter NN (exercises/NN_*/README.md)"; fi; \
	 exit $$status
