#!/usr/bin/env bash
# The planted bugs of one chapter, in SHARDS streams side by side (tests/plant_bugs.sh with
# PLANT_SHARD=K/SHARDS), for the chapters' H200 scripts (11_chapter_h200.sh, 12_chapter_h200.sh):
#     docs/experiments/h200_plants.sh OUT NAME_REGEX SHARDS LIMIT_S
# Stream K writes its lines to OUT/plants_K.txt; the copies, builds and logs go to OUT/plants/.
# Each stream stops after LIMIT_S seconds. Waits for all of them; builds for sm_90 (SM to change).
set -u
[ $# -eq 4 ] || { echo "usage: docs/experiments/h200_plants.sh OUT NAME_REGEX SHARDS LIMIT_S" >&2; exit 2; }
out=$1 only=$2 shards=$3 limit=$4
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$out/plants" || exit 2
for k in $(seq 1 "$shards"); do
  (PLANT_SHARD=$k/$shards SM=${SM:-90} timeout "$limit" tests/plant_bugs.sh "$out/plants" "$only" \
    >"$out/plants_$k.txt" 2>&1) &
done
wait
