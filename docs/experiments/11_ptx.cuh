/**
 * \file 11_ptx.cuh
 * \brief The PTX wrappers shared by chapter 11's two experiments (docs/experiments/11_ceiling.cu
 *        and docs/experiments/11_scan_proto.cu): one instruction each (docs/experiments/11_design.md
 *        §4), the GPU clock, and a phase wait with a watchdog. Chapter 11 itself keeps its own copy,
 *        since a chapter shows all the device code it runs (docs/CONVENTIONS.md §2). Included once
 *        by each experiment (no include guard).
 */
#include <stdint.h>

/** A wait longer than this raises the error flag (exit 3) instead of hanging. */
#define WATCHDOG_NS 2000000000ull

/** Shared-memory address of a generic pointer, as the mbarrier and bulk instructions take it. */
__device__ static unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/** `mbarrier.init`: a barrier whose phase completes after `count` arrivals (and its tx-count back to 0). */
__device__ static void mbarrier_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" : : "r"(smem_addr(bar)), "r"(count)
                 : "memory");
}

/** `fence.mbarrier_init.release.cluster`: the initialisation, visible before the barrier is used. */
__device__ static void fence_mbarrier_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
}

/** `fence.proxy.async.shared::cta`: generic-proxy accesses of shared memory ordered with async-proxy ones. */
__device__ static void fence_proxy_async_shared(void)
{
    asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
}

/** `mbarrier.arrive.expect_tx.release.cta`: one arrival, and `bytes` more to come by complete-tx. */
__device__ static void mbarrier_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;"
                 : : "r"(smem_addr(bar)), "r"(bytes) : "memory");
}

/** `mbarrier.arrive.release.cta`: one arrival; this thread's earlier accesses are released. */
__device__ static void mbarrier_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" : : "r"(smem_addr(bar))
                 : "memory");
}

/** `mbarrier.try_wait.parity.acquire.cta`: 1 once the phase of parity `parity` has completed (the thread may be suspended a while first), else 0. */
__device__ static int mbarrier_try_wait_parity(uint64_t *bar, unsigned parity)
{
    unsigned done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
    return (int)done;
}

/** `cp.async.bulk` global → shared, `bytes` (a multiple of 16), completing on `bar` (complete-tx). */
__device__ static void bulk_copy_to_shared(void *dst, const void *src, unsigned bytes,
                                           uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
                 "[%3];"
                 : : "r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}

/** `%globaltimer`: the GPU's clock in ns. */
__device__ static unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/**
 * Wait for phase `parity` of `bar` to complete. Returns 0 (and raises `*error`) if that takes
 * more than WATCHDOG_NS, so that a bug stops the kernel instead of hanging the GPU.
 */
__device__ static int wait_parity(uint64_t *bar, unsigned parity, unsigned *error)
{
    unsigned spins = 0;
    unsigned long long start = 0;
    while (!mbarrier_try_wait_parity(bar, parity)) {
        if ((++spins & 255u) == 0) {
            const unsigned long long now = global_ns();
            if (start == 0)
                start = now;
            else if (now - start > WATCHDOG_NS) {
                atomicExch(error, 1u);
                return 0;
            }
        }
    }
    return 1;
}
