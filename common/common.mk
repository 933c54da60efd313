# Build rules shared by every chapter, the tests and the top-level Makefile.
#
# A chapter's Makefile is two lines:
#     SOURCES := my_chapter.cu
#     include ../common/common.mk
# and `make` there builds ./run in the chapter folder. Objects go to build/ at the top.
#
# Knobs (on the command line or in the environment):
#   SMS="75 80 86 89 90 100 120"  GPU architectures to build for; PTX is added for the last.
#                                 Default: the GPU(s) of this machine alone (as -arch=native
#                                 would); with no GPU here, all of ALL_SMS (a fat binary) for
#                                 `make all`, and TEST_SMS alone for every other build (`make
#                                 test`, `make check`, `make chapter-N`: compiled once, so that a
#                                 compile error is still caught)
#   SMS=90                        one architecture: a much faster build (H100/H200)
#   FAT=1                         all of ALL_SMS even where a GPU is (fat binaries on request)
#   DEBUG=1                       -G -O0 device code, -O0 -g host code

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
BUILD := $(ROOT)/build

ALL_SMS := 75 80 86 89 90 100 120
# The one architecture builds other than `make all` are for where no GPU could run them.
TEST_SMS ?= 90
DEBUG ?= 0

# nvcc: from PATH, else the toolkit's usual home. Empty when there is no CUDA toolkit, in which
# case only chapter 01 (plain C) and the host tests can be built.
ifeq ($(origin NVCC),undefined)
  NVCC := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
endif

# Asked once, in the top make, and handed to the chapters' makes through the environment:
# NVCC_ARCHS, what this nvcc builds for (from 7.5, the oldest GPU the course runs on), and
# GPU_SMS, the compute capabilities of the GPUs here (empty without a GPU), as nvcc's own
# -arch=native finds them (__nvcc_device_query), else as nvidia-smi reports them ("9.0": 90).
ifeq ($(origin NVCC_ARCHS),undefined)
  NVCC_ARCHS := $(if $(NVCC),$(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$$/\1/p' | \
                  awk '$$1 >= 75' | tr '\n' ' '))
  export NVCC_ARCHS
endif
ifeq ($(origin GPU_SMS),undefined)
  GPU_SMS := $(if $(NVCC),$(shell { "$(dir $(NVCC))__nvcc_device_query" 2>/dev/null || \
               nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null; } | \
               tr -d . | tr -c '0-9\n' '\n' | grep -E '^[0-9]{2,3}$$' | sort -u | tr '\n' ' '))
  export GPU_SMS
endif
ifeq ($(origin SMS),undefined)
  ifeq ($(FAT),1)
    SMS := $(ALL_SMS)
  else ifneq ($(strip $(GPU_SMS)),)
    SMS := $(GPU_SMS)
  else ifneq ($(filter all,$(MAKECMDGOALS)),)
    SMS := $(ALL_SMS)
  else
    SMS := $(TEST_SMS)
  endif
endif
export SMS
# SMS must name architectures this nvcc builds for (90a, 100f: the same with their suffix).
ifneq ($(strip $(NVCC_ARCHS)),)
  ifeq ($(strip $(SMS)),)
    $(error SMS is empty; give the GPU architectures to build for, e.g. make SMS=90; this nvcc builds: $(strip $(NVCC_ARCHS)))
  endif
  BAD_SMS := $(filter-out $(NVCC_ARCHS) $(addsuffix a,$(NVCC_ARCHS)) $(addsuffix f,$(NVCC_ARCHS)),$(SMS))
  ifneq ($(BAD_SMS),)
    $(error SMS="$(strip $(SMS))": $(BAD_SMS) is not a GPU architecture this nvcc builds for from compute capability 7.5 on; valid: $(strip $(NVCC_ARCHS)) (e.g. make SMS=90 for an H100/H200))
  endif
endif
CC := $(if $(filter default,$(origin CC)),gcc,$(CC))

GENCODE := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm)) \
           -gencode arch=compute_$(lastword $(SMS)),code=compute_$(lastword $(SMS))

ifeq ($(DEBUG),1)
  HOST_OPT := -O0 -g
  DEVICE_OPT := -G -O0 -g
else
  HOST_OPT := -O3
  DEVICE_OPT := -O3 -lineinfo
endif

CFLAGS := -std=c11 -Wall -Wextra -Werror -fopenmp $(HOST_OPT) -I$(ROOT)/common
# C++20 for designated initialisers in .cu files (the chapters' main()); a field they leave out is
# zero on purpose, so g++ must not warn about it (gcc does not, for C).
NVCCFLAGS := -std=c++20 $(DEVICE_OPT) $(GENCODE) \
             -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers,-fopenmp \
             -Werror all-warnings -I$(ROOT)/common
LDLIBS := -lgomp

# Rebuild everything when the flags change (make SMS=90 after a fat build, DEBUG=1, ...).
# Each make writes its own temporary file: the chapter makes of `make -j all` run this at the
# same moment, and a shared file half-written by one would look changed to another. A make that
# builds nothing (make help, clean, docs; plain `make` in the top folder) leaves the file alone,
# so that it never makes the next build start over.
FLAGS_FILE := $(BUILD)/flags.txt
BUILDS_NOTHING := $(if $(MAKECMDGOALS),$(if $(filter-out help clean docs,$(MAKECMDGOALS)),,1),$(if $(SOURCES),,1))
ifeq ($(BUILDS_NOTHING),)
$(shell mkdir -p $(BUILD) && new=$$(mktemp $(BUILD)/flags.XXXXXX) && chmod 644 $$new && \
  printf '%s\n' '$(CC) $(CFLAGS)' '$(NVCC) $(NVCCFLAGS)' > $$new && \
  (cmp -s $$new $(FLAGS_FILE) && rm -f $$new || mv $$new $(FLAGS_FILE)))
endif

COMMON_HOST_OBJS := $(addprefix $(BUILD)/common/,cli.o data.o io.o report.o selftest.o)
COMMON_CUDA_OBJS := $(BUILD)/common/cuda_util.o $(BUILD)/common/gpu_driver.o
# The library baselines (C wrappers around CUB and Thrust): linked by the chapters that run CUB
# beside their own scan, and by bench/baselines. Only a program that names one links it.
COMMON_BASELINE_OBJS := $(BUILD)/common/cub_scan.o $(BUILD)/common/thrust_scan.o

$(BUILD)/common/%.o: $(ROOT)/common/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/common/%.o: $(ROOT)/common/%.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

-include $(COMMON_HOST_OBJS:.o=.d) $(COMMON_CUDA_OBJS:.o=.d) $(COMMON_BASELINE_OBJS:.o=.d)

# ---- a chapter: SOURCES set by the including Makefile (BASELINES: baselines of common/ it links,
# e.g. cub_scan.cu). `make -j` from the top folder builds every object of common/ before any
# chapter's make starts, so no object is ever built by two makes at once. ----
ifdef SOURCES
CHAPTER_DIR := $(abspath $(dir $(firstword $(MAKEFILE_LIST))))
CHAPTER := $(notdir $(CHAPTER_DIR))
OBJS := $(patsubst %,$(BUILD)/$(CHAPTER)/%.o,$(basename $(SOURCES))) \
        $(patsubst %,$(BUILD)/common/%.o,$(basename $(BASELINES)))
IS_CUDA := $(filter %.cu,$(SOURCES))

.PHONY: all clean
.DEFAULT_GOAL := all
all: $(CHAPTER_DIR)/run

$(BUILD)/$(CHAPTER)/%.o: $(CHAPTER_DIR)/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/$(CHAPTER)/%.o: $(CHAPTER_DIR)/%.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(if $(NVCC),,$(error $(CHAPTER) needs nvcc, the CUDA compiler: install the CUDA Toolkit or put its bin/ folder on PATH))
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

ifneq ($(IS_CUDA),)
$(CHAPTER_DIR)/run: $(OBJS) $(COMMON_HOST_OBJS) $(COMMON_CUDA_OBJS)
	$(NVCC) $(GENCODE) $^ -o $@ $(LDLIBS)
else
$(CHAPTER_DIR)/run: $(OBJS) $(COMMON_HOST_OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
endif

clean:
	rm -rf $(BUILD)/$(CHAPTER) $(CHAPTER_DIR)/run

-include $(patsubst %,$(BUILD)/$(CHAPTER)/%.d,$(basename $(SOURCES)))
endif
