# Your own heed (included by the Makefile; exercises/README.md, "Your own heed"):
#   make yours           heed built on your passed exercises, in build-yours/ (heed, engine-check);
#                        prints which pieces are yours and which are still heed's
#   make yours-tutorial-NN  the same, then chapter NN's program linked on it (build-yours/tutorial-NN)
#                        and run (ARGS=--quick for its short version)
#   make yours-test      the same, then checks it: a wrong piece reported alone with its check's
#                        table, the gradient checks of the ops yours replace, the chapter programs
#                        against the quick output their chapters show, a short training whose
#                        losses must equal heed's to 1e-9, and the milestones (reverse learned,
#                        chapter 11's seed sentence translated)
#     ANSWERS=DIR        take the answers from DIR/NN_topic/exercises.cpp (default: exercises)
#     YOURS=DIR          build there (default: build-yours)
#     YOURS_CHAPTERS="NN ..."  link (and check) those chapters' programs (make yours: none by
#                        default; make yours-test: every chapter)
#     YOURS_TRANSLATE_STEPS=N  the translation milestone's steps (300; fewer: reported, not judged; 0: none)
# The substitution is at link time: exercises/yours/yours.sh says how. Only your answers and the
# joints compile; the rest is heed's objects, already built.
YOURS   ?= build-yours
ANSWERS ?= exercises
YOURS_JOINTS := $(filter-out exercises/yours/engine_check.cpp,$(wildcard exercises/yours/*.cpp))
# Where the answers' objects and their checkers are: the exercises' own for the student's folder,
# else YOURS (the checker reads the answers' object beside it: exercises/check/main.cpp).
YOURS_ANSBUILD := $(if $(filter exercises exercises/,$(ANSWERS)),$(BUILD),$(YOURS))

.PHONY: yours yours-test yours-prerequisites yours-announce
ifneq ($(YOURS_ANSBUILD),$(BUILD))
# (kept: the checker reads what the answers call from the object, and make yours links it)
.PRECIOUS: $(YOURS)/obj/exercises/%.o
$(YOURS)/obj/exercises/%.o: $(ANSWERS)/%.cpp exercises/exercises.mk
	@mkdir -p $(dir $@)
	$(CXX) $(BASEFLAGS) -Wno-unused-parameter -ffunction-sections $(CXXFLAGS) -c $< -o $@
# (subst, not patsubst: a % in a pattern rule's prerequisites is the stem)
$(YOURS)/exercise-%: $$(call obj,$(EX_CHECKER) exercises/check/$$*_check.cpp) \
                     $$(subst .cpp,.o,$$(subst $(ANSWERS)/,$(YOURS)/obj/exercises/,$$(wildcard $(ANSWERS)/$$*_*/exercises.cpp))) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)
endif

$(BUILD)/engine-check: $(call obj,exercises/yours/engine_check.cpp) $(LIB)
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

# The chapter programs linked on your heed, those YOURS_CHAPTERS names ("01 07"; empty: none).
# Their objects are the ones heed's own chapter programs are linked from. make yours builds what
# the student asked for, heed, and no chapter program (the first make yours in a class's edition
# builds heed's library, the heed program's objects and the checkers: exercises/README.md gives
# its time); make yours-tutorial-NN adds chapter NN's; make yours-test checks every chapter's.
YOURS_CHAPTERS ?= $(if $(filter yours-test,$(MAKECMDGOALS)),$(foreach c,$(CHAPTERS),$(firstword $(subst _, ,$(c)))))
YOURS_CHAPTER_OBJS := $(call obj,$(foreach n,$(YOURS_CHAPTERS),$(wildcard tutorials/$(n)_*/main.cpp)))
# The checkers make yours runs: those of the chapters that hold pieces (exercises/yours/pieces).
YOURS_CHECKS := $(foreach n,$(sort $(shell awk '!/^\#/ && NF { k = split($$2, e, ","); for (i = 1; i <= k; i++) print substr(e[i], 1, 2) }' \
                  exercises/yours/pieces)),$(wildcard exercises/check/$(n)_check.cpp))

yours-prerequisites: $(LIB) $(BUILD)/engine-check $(YOURS_CHAPTER_OBJS) \
                     $(call obj,tools/heed.cpp $(TOOL_SRCS) $(EX_CHECKER) $(YOURS_CHECKS) $(YOURS_JOINTS))
# Said first, before make builds anything (the prerequisites are a make of their own).
yours-announce:
	@echo "make yours: building what is not built yet of heed's library and program, the checkers and the chapter programs asked for (the first time: minutes)"

YOURS_RUN = MAKE="$(MAKE)" CXX="$(CXX)" CXXFLAGS="$(CXXFLAGS)" LDFLAGS="$(LDFLAGS)" BUILD="$(BUILD)" LIB="$(LIB)" \
  YOURS="$(YOURS)" ANSWERS="$(patsubst %/,%,$(ANSWERS))" ANSBUILD="$(YOURS_ANSBUILD)" \
  HEED_OBJS="$(call obj,tools/heed.cpp $(TOOL_SRCS))" CHAPTER_OBJS="$(YOURS_CHAPTER_OBJS)" bash exercises/yours/yours.sh
yours: yours-announce
	@$(MAKE) --no-print-directory yours-prerequisites YOURS_CHAPTERS="$(YOURS_CHAPTERS)"
	@MODE=build $(YOURS_RUN)
yours-test: yours-announce
	@$(MAKE) --no-print-directory yours-prerequisites YOURS_CHAPTERS="$(YOURS_CHAPTERS)"
	@MODE=test $(YOURS_RUN)
# One chapter's program on your heed, built and run: make yours-tutorial-07 ARGS=--quick.
yours-tutorial-%:
	@$(MAKE) --no-print-directory yours YOURS_CHAPTERS=$*
	@echo "make yours: $(YOURS)/tutorial-$* $(ARGS)"
	@$(YOURS)/tutorial-$* $(ARGS)

# make test's exercises suite runs make yours and yours-test (tests/exercises/exercises_test.cpp, "your
# heed"): what they link is built beforehand, with everything else.
ifneq ($(EX_FULL),)
test: yours-prerequisites
endif
