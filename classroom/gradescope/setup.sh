#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder's image (docs/instructor.md, "Gradescope").
# The CUDA Toolkit is not installed here: it is large; for chapters 02-08 use a base image that
# has it at /usr/local/cuda. Chapter 01 needs only what this installs.
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  make gcc libc6-dev libgomp1 python3 binutils >/dev/null
