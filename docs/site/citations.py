"""Where the works the notes cite live: the addresses that docs/site/postprocess.py links their
mentions to (the notes themselves stay plain text, as GitHub shows them).

A mention is linked where the notes name the work the way they do now: "Merrill & Garland",
"Snir", "PTX ISA §8.9.4" (or a bare "§8.9.4" in a sentence about the memory model), "CUDA C++
Programming Guide, *Warp Shuffle Functions*", "cub#245". A section number that is not in the
tables below stays plain text, and make docs lists it ("citations not linked"): add it here,
from the manual's own table of contents, rather than guess.
"""
import re

# Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA
# technical report NVR-2016-002, 2016 (the publication's page, which links the PDF).
PAPER = "https://research.nvidia.com/publication/single-pass-parallel-prefix-scan-decoupled-look-back"

# The PTX ISA. Section numbers as in PTX ISA 9.1, which the notes cite (docs/primer.md says so);
# the anchors are the manual's own, made from the sections' titles, so a link still lands on the
# right section when a later manual numbers it differently. From the manual's table of contents
# (docs.nvidia.com/cuda/parallel-thread-execution, version 9.1): chapter 8 whole, and the
# sections of chapter 9 that the notes and the logs cite.
PTX = "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html"
PTX_SECTIONS = {
    "8": ("memory-consistency-model", "Memory Consistency Model"),
    "8.1": ("scope-and-applicability", "Scope and applicability of the model"),
    "8.1.1": ("limitations-system-scope-atomicity", "Limitations on atomicity at system scope"),
    "8.2": ("memory-operations", "Memory operations"),
    "8.2.1": ("overlap", "Overlap"),
    "8.2.2": ("aliases", "Aliases"),
    "8.2.3": ("multimem-addresses", "Multimem Addresses"),
    "8.2.4": ("memory-operations-on-vector-data-types", "Memory Operations on Vector Data Types"),
    "8.2.5": ("memory-operations-on-packed-data-types", "Memory Operations on Packed Data Types"),
    "8.2.6": ("initialization", "Initialization"),
    "8.3": ("memory-consistency-state-spaces", "State spaces"),
    "8.4": ("operation-types", "Operation types"),
    "8.4.1": ("mmio-operation", "mmio Operation"),
    "8.4.2": ("volatile-operation", "volatile Operation"),
    "8.5": ("scope", "Scope"),
    "8.6": ("proxies", "Proxies"),
    "8.7": ("morally-strong-operations", "Morally strong operations"),
    "8.7.1": ("conflict-and-data-races", "Conflict and Data-races"),
    "8.7.2": ("mixed-size-limitations", "Limitations on Mixed-size Data-races"),
    "8.8": ("release-acquire-patterns", "Release and Acquire Patterns"),
    "8.9": ("ordering-memory-operations", "Ordering of memory operations"),
    "8.9.1": ("program-order", "Program Order"),
    "8.9.1.1": ("program-order-async-operations", "Asynchronous Operations"),
    "8.9.2": ("observation-order", "Observation Order"),
    "8.9.3": ("fence-sc-order", "Fence-SC Order"),
    "8.9.4": ("memory-synchronization", "Memory synchronization"),
    "8.9.5": ("causality-order", "Causality Order"),
    "8.9.6": ("coherence-order", "Coherence Order"),
    "8.9.7": ("communication-order", "Communication Order"),
    "8.10": ("axioms", "Axioms"),
    "8.10.1": ("coherence-axiom", "Coherence"),
    "8.10.2": ("fence-sc-axiom", "Fence-SC"),
    "8.10.3": ("atomicity-axiom", "Atomicity"),
    "8.10.4": ("no-thin-air-axiom", "No Thin Air"),
    "8.10.5": ("sc-per-loc-axiom", "Sequential Consistency Per Location"),
    "8.10.6": ("causality-axiom", "Causality"),
    "8.11": ("special-cases", "Special Cases"),
    "8.11.1": ("red-read", "Reductions do not form Acquire Patterns"),
    "9.7.9.6": ("data-movement-and-conversion-instructions-shfl-sync", "shfl.sync"),
    "9.7.9.8": ("data-movement-and-conversion-instructions-ld", "ld"),
    "9.7.9.11": ("data-movement-and-conversion-instructions-st", "st"),
    "9.7.9.15": ("data-movement-and-conversion-instructions-prefetch-prefetchu", "prefetch, prefetchu"),
    "9.7.9.25": ("data-movement-and-conversion-instructions-asynchronous-copy", "Asynchronous copy"),
    "9.7.9.25.1": ("data-movement-and-conversion-instructions-asynchronous-copy-completion-mechanisms",
                   "Completion Mechanisms for Asynchronous Copy Operations"),
    "9.7.9.25.2": ("async-proxy", "Async Proxy"),
    "9.7.9.25.3.1": ("data-movement-and-conversion-instructions-cp-async", "cp.async"),
    "9.7.9.25.4": ("data-movement-and-conversion-instructions-bulk-copy", "Bulk copy"),
    "9.7.9.25.4.1": ("data-movement-and-conversion-instructions-cp-async-bulk", "cp.async.bulk"),
    "9.7.13.1": ("parallel-synchronization-and-communication-instructions-bar", "bar, barrier"),
    "9.7.13.4": ("parallel-synchronization-and-communication-instructions-membar", "membar / fence"),
    "9.7.13.5": ("parallel-synchronization-and-communication-instructions-atom", "atom"),
    "9.7.13.6": ("parallel-synchronization-and-communication-instructions-red", "red"),
    "9.7.13.12": ("parallel-synchronization-and-communication-instructions-redux-sync", "redux.sync"),
    "9.7.13.13": ("parallel-synchronization-and-communication-instructions-griddepcontrol",
                  "griddepcontrol"),
    "9.7.13.15": ("parallel-synchronization-and-communication-instructions-mbarrier", "mbarrier"),
    # later manuals number the mbarrier section §9.7.14.16 or §9.7.15.16 (11_design.md names both)
    "9.7.14.16": ("parallel-synchronization-and-communication-instructions-mbarrier", "mbarrier"),
    "9.7.15.16": ("parallel-synchronization-and-communication-instructions-mbarrier", "mbarrier"),
    "9.7.13.15.2": ("parallel-synchronization-and-communication-instructions-mbarrier-contents",
                    "Contents of the mbarrier object"),
    "9.7.13.15.4": ("parallel-synchronization-and-communication-instructions-mbarrier-phase",
                    "Phase of the mbarrier object"),
    "9.7.13.15.5": ("parallel-synchronization-and-communication-instructions-mbarrier-tracking-async-operations",
                    "Tracking asynchronous operations by the mbarrier object"),
    "9.7.13.15.6": ("parallel-synchronization-and-communication-instructions-mbarrier-phase-completion",
                    "Phase Completion of the mbarrier object"),
    "9.7.13.15.7": ("parallel-synchronization-and-communication-instructions-mbarrier-arrive-on",
                    "Arrive-on operation on mbarrier object"),
    "9.7.13.15.16": ("parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait",
                     "mbarrier.test_wait / mbarrier.try_wait"),
}

# The CUDA guides of CUDA 13.0 (the course's version), by the sections the notes name.
GUIDE = "https://docs.nvidia.com/cuda/archive/13.0.0/cuda-c-programming-guide/index.html"
GUIDE_SECTIONS = {
    "warp shuffle functions": "warp-shuffle-functions",
    "device memory accesses": "device-memory-accesses",
    "launch bounds": "launch-bounds",
    "independent thread scheduling": "independent-thread-scheduling",
    "technical specifications": "features-and-technical-specifications",
}
BEST_PRACTICES = "https://docs.nvidia.com/cuda/archive/13.0.0/cuda-c-best-practices-guide/index.html"
BEST_PRACTICES_SECTIONS = {
    "coalesced access to global memory": "coalesced-access-to-global-memory",
}

# Works named by their authors or titles: (key, pattern, address). The pattern is matched in the
# HTML text of a page (so "&" is "&amp;"); the first mention in each section of a page is linked.
WORKS = [
    ("paper", r"Merrill (?:&amp;|and) Garland", PAPER),
    # M. Snir, "Depth-size trade-offs for parallel prefix computation", J. Algorithms 7(2),
    # 185-201, 1986
    ("snir", r"\bSnir\b", "https://www.sciencedirect.com/science/article/pii/0196677486900037"),
    # G. E. Blelloch, "Prefix Sums and Their Applications" (CMU-CS-90-190; the author's copy)
    ("blelloch", r"Prefix Sums and Their\s+Applications",
     "https://www.cs.cmu.edu/~guyb/papers/Ble93.pdf"),
    # Harris, Sengupta and Owens, "Parallel Prefix Sum (Scan) with CUDA", GPU Gems 3, ch. 39
    ("gems", r"GPU Gems 3(?: scan chapter| ch\. 39)?",
     "https://developer.nvidia.com/gpugems/gpugems3/part-vi-gpu-computing/"
     "chapter-39-parallel-prefix-sum-scan-cuda"),
    ("ptx", r"\bPTX ISA\b(?!\s*§)", PTX),
]
# A guide named with the section after it: the section's anchor (looked up in the next words).
GUIDES = [
    ("guide", r"CUDA C\+\+ Programming Guide", GUIDE, GUIDE_SECTIONS),
    ("best-practices", r"CUDA C\+\+ Best Practices Guide", BEST_PRACTICES, BEST_PRACTICES_SECTIONS),
]
# Issues and pull requests of NVIDIA's libraries: cub#245, CCCL#1234, "CCCL PR 6811".
ISSUE = re.compile(r"\b(cub|cccl|thrust|CUB|CCCL|Thrust)(?:#| issue #?| (?:PR|pull request) #?)(\d+)\b")
ISSUE_REPO = {"cub": "cub", "cccl": "cccl", "thrust": "thrust"}


def issue_url(m):
    kind = "pull" if re.search(r"PR|pull", m.group(0)) else "issues"
    return "https://github.com/NVIDIA/%s/%s/%s" % (ISSUE_REPO[m.group(1).lower()], kind, m.group(2))


def ptx_url(number):
    """The address of a PTX ISA section by its number (9.1's numbering), or None."""
    if number in PTX_SECTIONS:
        return "%s#%s" % (PTX, PTX_SECTIONS[number][0])
    return None


def section_url(base, sections, following):
    """A guide's address, at the section named in `following` (the words after the guide's name)
    if it is one of `sections`."""
    low = following.lower()
    for title, anchor in sections.items():
        if title in low:
            return "%s#%s" % (base, anchor)
    return base
