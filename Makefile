# GPU prefix sum, step by step. `make help` lists the targets.
#
#   make chapter-1 && ./run      build a chapter; ./run here runs the chapter built last
#   make test                    build and run every chapter's self-test and command line (GPU
#                                ones when a GPU is here): the tier of the first hour
#   make test-all                the exhaustive tier: every n > 2^31 case, stress and fuzz in full
#   make check                   the quick tier: unit tests, command line, small self-tests
#   make SMS=90 ...              build for one GPU architecture only (fast); DEBUG=1 for -G -O0
#                                (default: this machine's GPU alone; without one, all of ALL_SMS
#                                for make all, TEST_SMS for the rest; FAT=1: all of ALL_SMS)

# make grade and make grade-class build students' code with the flags of the last build
# (build/flags.txt), unless SMS or DEBUG is given: grading never rebuilds the course for other
# architectures (after `make SMS=90 all`, a plain `make grade` is for sm_90 too).
comma := ,
ifneq ($(filter grade grade-class grade-setup,$(MAKECMDGOALS)),)
  LAST_NVCC_FLAGS := $(shell sed -n 2p build/flags.txt 2>/dev/null)
  ifeq ($(origin SMS),undefined)
    ifneq ($(filter code=sm_%,$(subst $(comma), ,$(LAST_NVCC_FLAGS))),)
      SMS := $(patsubst code=sm_%,%,$(filter code=sm_%,$(subst $(comma), ,$(LAST_NVCC_FLAGS))))
    endif
  endif
  ifeq ($(origin DEBUG),undefined)
    ifneq ($(filter -G,$(LAST_NVCC_FLAGS)),)
      DEBUG := 1
      export DEBUG
    endif
  endif
endif

include common/common.mk

CHAPTER_DIRS := 01_cpu_serial 02_warp_shfl 03_block_scan 04_scan_then_fan \
                05_reduce_then_scan 06_chained_scan 07_decoupled_lookback 08_memcpy_speed \
                09_operators 10_compaction 11_warp_specialised 12_decoupled_fallback \
                13_out_of_core 14_multi_gpu
# Chapters that exist: their folder has a Makefile.
READY := $(patsubst %/Makefile,%,$(wildcard $(addsuffix /Makefile,$(CHAPTER_DIRS))))
READY_NUMBERS := $(foreach d,$(READY),$(patsubst 0%,%,$(firstword $(subst _, ,$(d)))))
CHAPTER_NUMBERS := $(foreach d,$(CHAPTER_DIRS),$(patsubst 0%,%,$(firstword $(subst _, ,$(d)))))
# make test and make check build in parallel on their own, JOBS at a time (every core here),
# unless make was given -j itself.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

TEST_BIN := $(BUILD)/tests
# chapter 09's float checks only where chapter 09 is (a students' copy may leave it out)
HOST_TESTS := $(TEST_BIN)/test_common $(TEST_BIN)/scan_networks \
              $(if $(wildcard 09_operators/float_checks.c),$(TEST_BIN)/test_float_checks)
CUDA_TESTS := $(if $(NVCC),$(TEST_BIN)/cuda_probe $(TEST_BIN)/test_cuda_util)
# The host code under AddressSanitizer and UndefinedBehaviorSanitizer: chapter 01 (all of it is
# host code) and the unit tests of common/, built apart in build/asan, run by make test beside a
# bounded fuzz of the command line and the file reader (tests/fuzz_cli.sh).
ASAN_DIR := $(BUILD)/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O0
ASAN_COMMON := $(addprefix common/,cli.c data.c io.c report.c selftest.c)
ASAN_BINS := $(ASAN_DIR)/cpu_serial $(ASAN_DIR)/test_common
# The baselines of make bench: CUB and Thrust through the chapters' driver.
BENCH_BASELINES := $(if $(NVCC),$(BUILD)/bench/baselines)

.PHONY: help all common common-chapters test-build tests test test-all check bench sanitize docs figures clean classroom-env starter grade grade-class \
        grade-setup gradescope-zip precheck manifest $(READY)
.DEFAULT_GOAL := help

help:
	@echo "GPU prefix sum, step by step. Targets:"
	@echo "  make chapter-N   build chapter N and point ./run at it: make chapter-1 && ./run"
	@echo "  make all         build every chapter that exists, and the tests"
	@echo "  make test        build, run host tests and every chapter's self-test below 2^31 (GPU"
	@echo "                   suites need a GPU), n > 2^31 in chapters 06 and 08: README, Tests"
	@echo "  make test-all    the exhaustive tier: every n > 2^31 case, stress tests and fuzz in full"
	@echo "  make check       the quick tier (a minute): unit tests, command line, self-tests up to 2^20"
	@echo "  make bench       chapters 04-12 beside CUB, Thrust and memcpy, 2^10 ... 2^30: docs/results/ (GPU;"
	@echo "                   a run with noisy rows is refused unless BENCH_ALLOW_NOISY=1)"
	@echo "  make sanitize    compute-sanitizer memcheck, racecheck, synccheck on the GPU chapters"
	@echo "  make docs        the course site into build/docs/html, then its checks (links; a browser where Chromium is)"
	@echo "  make figures     redraw the figures in docs/figures (from the models in tests/scan_networks.c)"
	@echo "  make starter DIR=path [CHAPTERS=\"2 3 7\"]   the student's copy: their parts stubbed, no answers"
	@echo "  make grade CH=N STUDENT=path [OUT=dir]       grade one submission (N = 1-8 or radix): table, results.json"
	@echo "  make grade-class CH=N CLASS=folder [OUT=dir] [ONLY=\"names\"]  a folder of submissions into"
	@echo "                   grades.csv (ONLY: regrade those, their rows replaced); grading uses the last build's SMS"
	@echo "  make gradescope-zip CH=N [OUT=file.zip]      Gradescope's autograder zip for chapter N (GRADE_SEED: yours)"
	@echo "  make grade-setup CH=N                        build what grading N needs, ahead (Gradescope's setup.sh runs it)"
	@echo "  make precheck CH=N                           a student's check before handing in: the grader's honesty check and build"
	@echo "  make manifest                                classroom/MANIFEST: the course's files, for a copy without git"
	@echo "  make clean       remove build/ and every ./run"
	@echo "  make help        this list"
	@echo "Options: SMS=\"$(strip $(SMS))\": the GPU architectures to build for; by default the GPU of"
	@echo "           this machine alone ($(or $(strip $(GPU_SMS)),none found)); without a GPU, all of ALL_SMS for"
	@echo "           make all and TEST_SMS=$(TEST_SMS) for any other build; this nvcc builds: $(strip $(NVCC_ARCHS))"
	@echo "         FAT=1: every architecture of ALL_SMS=\"$(ALL_SMS)\" even where a GPU is; DEBUG=1: -G -O0"
	@echo "         JOBS=$(JOBS): parallel compiles of make test/check; TEST_JOBS=N: suites side by side"
	@echo "Chapters written: $(if $(READY_NUMBERS),$(READY_NUMBERS),none)"

# Every object of common/ the chapters link is built here, before any chapter's make starts:
# with `make -j`, no object is then built by two makes at once. `common` adds the Thrust
# wrapper, which only bench/baselines links.
common-chapters: $(COMMON_HOST_OBJS) $(if $(NVCC),$(COMMON_CUDA_OBJS) $(BUILD)/common/cub_scan.o)
common: common-chapters $(if $(NVCC),$(COMMON_BASELINE_OBJS))

all: common tests $(READY) $(BENCH_BASELINES)

# What the tests run: all but bench/baselines (make bench builds it; its Thrust wrapper is the
# longest compile of all, about a third of a build's CPU time on a machine without a GPU).
test-build: common-chapters tests $(READY)

$(READY): common-chapters
	$(MAKE) -C $@ all

# N from CHAPTER_DIRS (1, or 01); the chapters' list is never written out anywhere else
chapter-%:
	@n=$$(echo "$*" | sed 's/^0*//'); \
	case " $(CHAPTER_NUMBERS) " in *" $$n "*) ;; *) echo "there is no chapter $*; the chapters" \
	  "written are $(or $(READY_NUMBERS),none)$(if $(filter-out $(READY_NUMBERS),$(CHAPTER_NUMBERS)), (planned:" \
	  "$(filter-out $(READY_NUMBERS),$(CHAPTER_NUMBERS))))"; exit 1;; esac; \
	num=$$(printf '%02d' $$n); dir=$$(ls -d $${num}_* 2>/dev/null | head -n 1); \
	if [ -z "$$dir" ] || [ ! -f "$$dir/Makefile" ]; then \
	  name=$$(echo "$(CHAPTER_DIRS)" | tr ' ' '\n' | grep "^$${num}_" || echo "chapter-$*"); \
	  echo "chapter $* ($$name) is not written yet; chapters written: $(READY_NUMBERS)"; \
	  exit 1; \
	fi; \
	$(MAKE) -C "$$dir" all && ln -sfn "$$dir/run" run && echo "./run is now $$dir/run"

tests: $(HOST_TESTS) $(CUDA_TESTS) $(ASAN_BINS)


$(ASAN_DIR)/cpu_serial: 01_cpu_serial/cpu_serial.c $(ASAN_COMMON) $(wildcard common/*.h) $(FLAGS_FILE) Makefile
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -fopenmp $(ASAN_FLAGS) -Icommon 01_cpu_serial/cpu_serial.c $(ASAN_COMMON) -o $@ -lgomp

$(ASAN_DIR)/test_common: tests/test_common.c $(ASAN_COMMON) $(wildcard common/*.h) $(FLAGS_FILE) Makefile
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -fopenmp $(ASAN_FLAGS) -Icommon tests/test_common.c $(ASAN_COMMON) -o $@ -lgomp

$(TEST_BIN)/test_common: tests/test_common.c $(COMMON_HOST_OBJS) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< $(COMMON_HOST_OBJS) -o $@ $(LDLIBS)

# chapter 09's float checks are host code: tried on host data, no GPU needed
$(TEST_BIN)/test_float_checks: tests/test_float_checks.c 09_operators/float_checks.c \
                               $(COMMON_HOST_OBJS) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I09_operators -MMD -MP -MF $@.d tests/test_float_checks.c \
	  09_operators/float_checks.c $(COMMON_HOST_OBJS) -o $@ $(LDLIBS) -lm

$(TEST_BIN)/scan_networks: tests/scan_networks.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< -o $@

$(TEST_BIN)/%: tests/%.cu $(COMMON_HOST_OBJS) $(COMMON_CUDA_OBJS) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -MF $@.d $< $(COMMON_HOST_OBJS) $(COMMON_CUDA_OBJS) -o $@ $(LDLIBS)

-include $(wildcard $(TEST_BIN)/*.d)

$(BUILD)/bench/baselines.o: bench/baselines.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/bench/baselines: $(BUILD)/bench/baselines.o $(COMMON_BASELINE_OBJS) $(COMMON_HOST_OBJS) \
                          $(COMMON_CUDA_OBJS)
	$(NVCC) $(GENCODE) $^ -o $@ $(LDLIBS)

-include $(wildcard $(BUILD)/bench/*.d)

# The build of make test, test-all and check: parallel unless make already is (-j given).
define build_in_parallel
	@case "$$MAKEFLAGS" in *-j*|*jobserver*) jobs="" ;; *) jobs="-j$(JOBS)" ;; esac; \
	  $(MAKE) --no-print-directory $$jobs test-build
endef

# The tiers (tests/run_tests.sh and the README's "Tests" say what each runs).
test:
	$(build_in_parallel)
	@CHAPTERS="$(READY)" tests/run_tests.sh

test-all:
	$(build_in_parallel)
	@CHAPTERS="$(READY)" tests/run_tests.sh --all

check:
	$(build_in_parallel)
	@CHAPTERS="$(READY)" tests/run_tests.sh --quick

# Without a GPU, make bench says so before building anything (bench/run_bench.sh asks the probe
# again after the build, and names the fix: bench/run_bench.sh --from CSV).
bench:
	@$(if $(strip $(GPU_SMS)),,echo "make bench needs a CUDA GPU, and none was found here (nvcc's" \
	  "device query, nvidia-smi); without one, bench/run_bench.sh --from CSV draws the tables and" \
	  "plots of a run made elsewhere$(if $(wildcard docs/results/*.csv), (e.g. --from" \
	  "$(firstword $(wildcard docs/results/*.csv))))" >&2; exit 2)
	@$(MAKE) --no-print-directory all
	@CHAPTERS="$(READY)" bench/run_bench.sh

sanitize: all
	@CHAPTERS="$(READY)" tests/sanitize.sh

# The course site (docs/site/ says how it is made): Doxygen over README.md, docs/, common/, tests/,
# bench/ and the chapters that exist, in their order; Debian's doxygen-awesome-css and MathJax
# (copied into the site: it works offline and can be published as it is); then the checks of
# tests/check_docs.sh (the text, every link and image, a copy of the site moved elsewhere, and a
# headless browser where Chromium is installed: every page at 1024 px and at 390 px, a phone).
DOXY_AWESOME ?= /usr/share/doxygen-awesome-css
MATHJAX ?= /usr/share/javascript/mathjax
docs:
	@command -v doxygen >/dev/null || { echo "make docs needs doxygen (apt-get install doxygen graphviz)"; exit 2; }
	@command -v python3 >/dev/null || { echo "make docs needs python3 (apt-get install python3)"; exit 2; }
	@[ -f "$(DOXY_AWESOME)/doxygen-awesome.css" ] || { echo "make docs needs doxygen-awesome-css" \
	  "(apt-get install doxygen-awesome-css), or DOXY_AWESOME=the folder of doxygen-awesome.css"; exit 2; }
	@[ -f "$(MATHJAX)/MathJax.js" ] || { echo "make docs needs MathJax 2 (apt-get install libjs-mathjax)," \
	  "or MATHJAX=the folder of MathJax.js"; exit 2; }
	@command -v dot >/dev/null || echo "make docs: Graphviz (dot) not found: no include graphs (apt-get install graphviz)"
	@rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs/gen
	@python3 docs/site/site_pages.py --gen $(BUILD)/docs/gen
	DOXY_INPUT="README.md docs common tests bench $(READY) $(BUILD)/docs/gen" DOXY_OUTPUT="$(BUILD)/docs" \
	  DOXY_CHAPTERS="$(READY)" DOXY_ROOT="$(CURDIR)" DOXY_AWESOME="$(DOXY_AWESOME)" \
	  DOXY_HAVE_DOT=$$(command -v dot >/dev/null && echo YES || echo NO) doxygen docs/Doxyfile
	@python3 docs/site/postprocess.py $(BUILD)/docs/html $(BUILD)/docs/site.tag "$(MATHJAX)"
	@DOXY_CHAPTERS="$(READY)" tests/check_docs.sh $(BUILD)/docs/html
	@echo "docs: open $(BUILD)/docs/html/index.html"

# The figures are committed; make test checks that they match what the model draws.
figures: $(TEST_BIN)/scan_networks
	@mkdir -p docs/figures
	$(TEST_BIN)/scan_networks --svg docs/figures

# ---- the classroom kit (classroom/; docs/instructor.md): the student's copy and the grader ----

# The compilers, flags and objects, for the kit's tools, which build students' code exactly as
# the chapters are built.
classroom-env:
	@printf '%s\n' 'CC=$(CC)' 'CFLAGS=$(CFLAGS)' 'NVCC=$(NVCC)' 'NVCCFLAGS=$(NVCCFLAGS)' \
	  'GENCODE=$(GENCODE)' 'LDLIBS=$(LDLIBS)' 'BUILD=$(BUILD)' 'SMS=$(SMS)' \
	  'COMMON_HOST_OBJS=$(COMMON_HOST_OBJS)' 'COMMON_CUDA_OBJS=$(COMMON_CUDA_OBJS)' \
	  'COMMON_BASELINE_OBJS=$(COMMON_BASELINE_OBJS)' 'ASAN_FLAGS=$(ASAN_FLAGS)'

# The student's copy: make starter DIR=path [CHAPTERS="2 3 7"] (classroom/starter.py says what
# goes in it). A student's copy has no classroom/ tools: there these targets say so.
KIT_TOOL = @command -v python3 >/dev/null || { echo "make $@ needs python3"; exit 2; }; \
  [ -f classroom/$(1) ] || { echo "make $@ is the instructor's: this copy of the course has no classroom/$(1)"; exit 2; }
starter:
	$(call KIT_TOOL,starter.py)
	@python3 classroom/starter.py "$(DIR)" $(CHAPTERS)

# The grader: make grade CH=N STUDENT=path [OUT=dir]; make grade-class CH=N CLASS=folder [OUT=dir]
# (classroom/grade.py says what it checks; GRADE_SEED sets the hidden vectors' seed).
# Chapter 01 (a CPU chapter) needs only the host objects, as make precheck: no CUDA object.
GRADE_NEEDS = $(if $(filter 1 01,$(CH)),$(COMMON_HOST_OBJS) $(FLAGS_FILE),common $(if $(NVCC),$(TEST_BIN)/cuda_probe))
grade:
	$(call KIT_TOOL,grade.py)
	@$(MAKE) -s --no-print-directory $(GRADE_NEEDS)
	@python3 classroom/grade.py one "$(CH)" "$(STUDENT)" "$(OUT)"

grade-class:
	$(call KIT_TOOL,grade.py)
	@$(MAKE) -s --no-print-directory $(GRADE_NEEDS)
	@python3 classroom/grade.py class "$(CH)" "$(CLASS)" "$(OUT)" $(ONLY)

# What grading chapter N needs, built once ahead (Gradescope's setup.sh runs it), so that no
# submission waits for the course's own objects.
grade-setup:
	$(call KIT_TOOL,grade.py)
	@$(MAKE) -s --no-print-directory $(GRADE_NEEDS)
	@python3 classroom/grade.py setup "$(CH)"

# A student's check before handing in, in their copy (make starter puts what it needs there):
# the grader's honesty check of chapter N's parts, and its build (classroom/precheck.py).
precheck:
	@command -v python3 >/dev/null || { echo "make precheck needs python3"; exit 2; }
	@[ -f classroom/precheck.py ] || { echo "make precheck: this copy has no classroom/precheck.py (make starter writes it)"; exit 2; }
	@$(MAKE) -s --no-print-directory $(COMMON_HOST_OBJS) $(if $(filter-out 1 01,$(CH)),$(if $(NVCC),$(COMMON_CUDA_OBJS) $(COMMON_BASELINE_OBJS)))
	@python3 classroom/precheck.py "$(CH)"

# The course's files, for a copy that is not a git checkout (a hand-out copies only these).
manifest:
	@git ls-files --cached >/dev/null 2>&1 || { echo "make manifest needs a git checkout of the course"; exit 2; }
	@{ echo "# The course's files (make manifest); a hand-out copies these and nothing else."; \
	   { git ls-files --cached; echo classroom/MANIFEST; } | sort -u; } > classroom/MANIFEST
	@echo "classroom/MANIFEST: $$(grep -vc '^#' classroom/MANIFEST) files"

# Gradescope's autograder: the course, setup.sh and run_autograder at the top, and grade.env
# (GRADE_CH, GRADE_SEED, SMS) in one zip (classroom/gradescope/make_zip.py).
gradescope-zip:
	$(call KIT_TOOL,gradescope/make_zip.py)
	@python3 classroom/gradescope/make_zip.py "$(CH)" "$(OUT)"

clean:
	rm -rf $(BUILD) run $(addsuffix /run,$(CHAPTER_DIRS))
