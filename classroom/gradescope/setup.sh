#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image (docs/instructor.md,
# "Gradescope"). It installs the tools; for a GPU chapter (GRADE_CH other than 1) the CUDA
# Toolkit's compiler and headers, from NVIDIA's apt repository for this Ubuntu (Gradescope's
# base image is Ubuntu 22.04), unless an nvcc is there already (a CUDA base image); then it builds
# what grading needs (make grade-setup), so that no submission waits for the course's objects.
# Gradescope's machines have no GPU: a GPU chapter's build and honesty are graded there, the
# rest on a GPU machine (make grade-class). AUTOGRADER (default /autograder) is for the kit's test.
set -euo pipefail
cd "${AUTOGRADER:-/autograder}/source"
. ./grade.env
CUDA_VERSION=${CUDA_VERSION:-13-0}  # the toolkit the course is written for (CUDA 13)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends make gcc g++ libc6-dev libgomp1 python3 binutils \
  ca-certificates wget >/dev/null
if [ "$GRADE_CH" != 1 ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  . /etc/os-release
  repo="ubuntu${VERSION_ID//./}"   # ubuntu2204
  wget -q -O /tmp/cuda-keyring.deb \
    "https://developer.download.nvidia.com/compute/cuda/repos/$repo/$(uname -m | sed 's/aarch64/sbsa/')/cuda-keyring_1.1-1_all.deb"
  dpkg -i /tmp/cuda-keyring.deb
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "cuda-nvcc-$CUDA_VERSION" \
    "cuda-cudart-dev-$CUDA_VERSION" "cuda-cccl-$CUDA_VERSION" >/dev/null
fi
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
make -s --no-print-directory SMS="${SMS:-90}" grade-setup CH="$GRADE_CH"
