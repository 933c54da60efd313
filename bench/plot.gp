# Plots of make bench (called by bench/run_bench.sh, which sets: data, blocks, gpu, cuda, day,
# bandwidth, latency, latency_max). data holds one block per series: a header line with its
# name, then "log2(n) time_us GB/s" rows. Block 0 is memcpy, drawn as the ceiling.
# 760 px wide with the key below the plot, the size written into the SVG (fixed): a page shows it
# at that size, or scaled down to a narrower screen (an SVG without a size has none to scale)
set terminal svg size 760,660 fixed font "DejaVu Sans,12" background rgb "white"
set logscale x 2
set format x "2^{%L}"
set xlabel "n (int32 elements)"
set grid
set key outside bottom center horizontal maxcols 3 width -2
set bmargin 9
set pointsize 0.7
# eleven colours that stay apart and read on white, in the order of the series (after Okabe &
# Ito and Paul Tol; no yellow, no pale blue); memcpy is drawn black
set linetype 1 linecolor rgb "#0072B2"
set linetype 2 linecolor rgb "#882255"
set linetype 3 linecolor rgb "#8C6D00"
set linetype 4 linecolor rgb "#117733"
set linetype 5 linecolor rgb "#332288"
set linetype 6 linecolor rgb "#555555"
set linetype 7 linecolor rgb "#AA4499"
set linetype 8 linecolor rgb "#44AA99"
set linetype 9 linecolor rgb "#8B0000"
set linetype 10 linecolor rgb "#D55E00"
set linetype 11 linecolor rgb "#999933"
set linetype cycle 11

# GB/s from 2^bandwidth_min on: below it every series is a few GB/s and launch time, not
# bandwidth, sets them apart, which the time plot shows
if (!exists("bandwidth_min")) bandwidth_min = 18
# GB/s on a log scale: the slowest series (a few tens of GB/s) and the copy (thousands) both
# show, each a factor of 10 a band of the same height; each series has its own point shape too,
# so that two that run alike (CUB inclusive and exclusive) can be told apart where they overlap
set output bandwidth
set title sprintf("Scan throughput on %s, CUDA %s, %s\nGB/s = 2 · 4 · n bytes / median time (log scale); memcpy of the same n is the ceiling\n(smaller n: the time plot)", gpu, cuda, day)
set ylabel "GB/s (log scale)"
set logscale y 10
set format y "%g"
set yrange [*:*]
set xrange [2**bandwidth_min:*]
plot data index 0 using (2**$1):3 with lines dashtype 2 linewidth 2 linecolor rgb "black" title columnheader(1), \
     for [i=1:blocks-1] data index i using (2**$1):3 with linespoints linetype i pointtype (i % 13) + 1 \
       linewidth 1.5 title columnheader(1)

set output latency
set title sprintf("Scan time at small n on %s, CUDA %s, %s\nmedian of event-timed calls: launch and latency, not bandwidth", gpu, cuda, day)
set ylabel "time per call (µs)"
set logscale y 10
set yrange [*:*]
set xrange [*:2**latency_max]
plot data index 0 using (2**$1):2 with lines dashtype 2 linewidth 2 linecolor rgb "black" title columnheader(1), \
     for [i=1:blocks-1] data index i using (2**$1):2 with linespoints linetype i pointtype (i % 13) + 1 \
       linewidth 1.5 title columnheader(1)
