/* gpu_mem.cu — the device memory ledger (see gpu_mem.h). */
#include <mutex>
#include <stdio.h>
#include <unordered_map>

#include "gpu_mem.h"
#include "gpu_util.cuh"

extern "C" {
#include "fault_point.h"
}

namespace {
struct entry {
    size_t bytes;
    enum gpu_mem_part part;
};
std::mutex mem_lock;
std::unordered_map<void *, entry> *mem_table;
std::unordered_map<void *, size_t> *pin_table; /* locked host address → its charge */
std::mutex pin_lock; /* one lock at a time: each measures alone among locks */
size_t mem_budget, mem_part[GPU_MEM_NPARTS], mem_total, mem_peak;
const char *const part_names[GPU_MEM_NPARTS] = { "points", "stream", "vectors", "ntt", "msm", "pinned", "other" };
const double GiB = 1073741824.0;
} // namespace

extern "C" size_t gpu_mem_margin(size_t total_bytes)
{
    return ((size_t)1 << 30) + total_bytes / 32;
}

extern "C" size_t gpu_mem_charge(size_t bytes)
{
    return (bytes + GPU_MEM_GRANULE - 1) / GPU_MEM_GRANULE * GPU_MEM_GRANULE;
}

extern "C" size_t gpu_mem_context_reserve(size_t local_per_thread)
{
    size_t fr = 0, tot = 0;
    int dev = 0, sms = 0, threads = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    size_t used = tot - fr, cap = (size_t)1 << 30, stack = 0;
    if (cudaDeviceGetLimit(&stack, cudaLimitStackSize) != cudaSuccess) {
        cudaGetLastError();
        stack = 0;
    }
    /* the stack's local memory came with the context (in used); a kernel
     * with more local memory grows it at its first launch, and it stays */
    size_t lt = (local_per_thread + 15) / 16 * 16, grow = lt > stack ? lt - stack : 0;
    return (used < cap ? used : cap) + grow * (size_t)sms * (size_t)threads + GPU_MEM_DRIVER_SLACK;
}

extern "C" size_t gpu_mem_set_budget(size_t bytes, struct sp_err *e)
{
    if (bytes == 0) {
        size_t fr = 0, tot = 0;
        cudaError_t err = cudaMemGetInfo(&fr, &tot);
        if (err != cudaSuccess) {
            sp_fail(e, -EIO, "gpu: memory info: %s", cudaGetErrorString(err));
            return 0;
        }
        size_t m = gpu_mem_margin(tot);
        bytes = fr > m ? fr - m : 0;
        if (bytes == 0) {
            sp_fail(e, -ENOMEM, "gpu: %.2f GiB free of %.2f GiB, less the %.2f GiB margin, leaves nothing",
                    fr / GiB, tot / GiB, m / GiB);
            return 0;
        }
    }
    std::lock_guard<std::mutex> g(mem_lock);
    mem_budget = bytes;
    return bytes;
}

extern "C" size_t gpu_mem_budget(void)
{
    std::lock_guard<std::mutex> g(mem_lock);
    return mem_budget;
}

extern "C" size_t gpu_mem_used(enum gpu_mem_part part)
{
    std::lock_guard<std::mutex> g(mem_lock);
    return part >= 0 && part < GPU_MEM_NPARTS ? mem_part[part] : mem_total;
}

extern "C" size_t gpu_mem_peak(void)
{
    std::lock_guard<std::mutex> g(mem_lock);
    return mem_peak;
}

extern "C" size_t gpu_mem_left(void)
{
    std::lock_guard<std::mutex> g(mem_lock);
    if (!mem_budget)
        return (size_t)-1;
    return mem_budget > mem_total ? mem_budget - mem_total : 0;
}

extern "C" const char *gpu_mem_part_name(enum gpu_mem_part part)
{
    return part >= 0 && part < GPU_MEM_NPARTS ? part_names[part] : "?";
}

extern "C" void gpu_mem_describe(char *buf, size_t len)
{
    std::lock_guard<std::mutex> g(mem_lock);
    int w;
    if (mem_budget)
        w = snprintf(buf, len, "budget %.2f GiB, %.2f used (", mem_budget / GiB, mem_total / GiB);
    else
        w = snprintf(buf, len, "no budget, %.2f GiB used (", mem_total / GiB);
    for (int i = 0; i < GPU_MEM_NPARTS && w > 0 && (size_t)w < len; i++)
        w += snprintf(buf + w, len - w, "%s%s %.2f", i ? ", " : "", part_names[i], mem_part[i] / GiB);
    if (w > 0 && (size_t)w < len)
        snprintf(buf + w, len - w, "), peak %.2f", mem_peak / GiB);
}

extern "C" int gpu_mem_alloc(void **ret, size_t bytes, enum gpu_mem_part part, const char *what,
                             struct sp_err *e)
{
    *ret = nullptr;
    if (bytes == 0)
        return 0;
    if (part < 0 || part >= GPU_MEM_NPARTS)
        part = GPU_MEM_OTHER;
    size_t charged = gpu_mem_charge(bytes);
    if (fault_point("gpu-alloc", what))
        return sp_fail(e, -ENOMEM, "gpu: %s (%zu MiB): cudaErrorMemoryAllocation: out of memory (injected)",
                       what, bytes >> 20);
    {
        /* charge first, so two threads cannot both pass the budget */
        std::lock_guard<std::mutex> g(mem_lock);
        if (mem_budget && (mem_total > mem_budget || charged > mem_budget - mem_total))
            return sp_fail(e, -ENOMEM,
                           "gpu: %s (%.2f GiB) would pass the --gpu-mem budget of %.2f GiB "
                           "(%.2f GiB in use)",
                           what, charged / GiB, mem_budget / GiB, mem_total / GiB);
        mem_total += charged;
        mem_part[part] += charged;
    }
    cudaError_t err = cudaMalloc(ret, bytes);
    std::lock_guard<std::mutex> g(mem_lock);
    if (err == cudaSuccess && !mem_table)
        mem_table = new (std::nothrow) std::unordered_map<void *, entry>();
    if (err == cudaSuccess && mem_table) {
        try {
            (*mem_table)[*ret] = entry{ charged, part };
        } catch (...) {
            cudaFree(*ret);
            err = cudaErrorMemoryAllocation;
        }
    }
    if (err != cudaSuccess || !mem_table) {
        mem_total -= charged;
        mem_part[part] -= charged;
        if (err == cudaSuccess) {
            cudaFree(*ret);
            err = cudaErrorMemoryAllocation;
        }
        *ret = nullptr;
        if (err == cudaErrorMemoryAllocation)
            cudaGetLastError(); /* not sticky: clear it */
        return sp_fail(e, err == cudaErrorMemoryAllocation ? -ENOMEM : -EIO, "gpu: %s (%zu MiB): %s: %s",
                       what, bytes >> 20, cudaGetErrorName(err), cudaGetErrorString(err));
    }
    if (mem_total > mem_peak)
        mem_peak = mem_total;
    return 0;
}

extern "C" void gpu_mem_free(void *p)
{
    if (!p)
        return;
    cudaFree(p);
    std::lock_guard<std::mutex> g(mem_lock);
    if (!mem_table)
        return;
    auto it = mem_table->find(p);
    if (it == mem_table->end())
        return;
    mem_total -= it->second.bytes;
    mem_part[it->second.part] -= it->second.bytes;
    mem_table->erase(it);
}

extern "C" size_t gpu_mem_pin_floor(size_t bytes)
{
    const size_t gib = (size_t)1 << 30;
    return (bytes + gib - 1) / gib * GPU_MEM_PIN_PER_GIB;
}

extern "C" size_t gpu_mem_pin_ceiling(size_t bytes)
{
    return bytes ? 2 * gpu_mem_pin_floor(bytes) + GPU_MEM_GRANULE : 0;
}

extern "C" size_t gpu_mem_pin_charge(size_t bytes, size_t measured)
{
    size_t lo = gpu_mem_pin_floor(bytes), hi = gpu_mem_pin_ceiling(bytes), m = gpu_mem_charge(measured);
    return m < lo ? lo : m > hi ? hi : m;
}

extern "C" int gpu_mem_register(void *p, size_t bytes, const char *what, struct gpu_mem_pin *pin,
                                struct sp_err *e)
{
    if (pin)
        *pin = gpu_mem_pin{ 0, 0 };
    if (!p || bytes == 0)
        return 0;
    size_t ceiling = gpu_mem_pin_ceiling(bytes);
    std::lock_guard<std::mutex> serial(pin_lock);
    {
        /* the ceiling first, so no allocation meanwhile takes what the
         * lock may cost; the peak is moved once the charge is known */
        std::lock_guard<std::mutex> g(mem_lock);
        if (mem_budget && (mem_total > mem_budget || ceiling > mem_budget - mem_total))
            return sp_fail(e, -ENOMEM,
                           "gpu: page-locking %.2f GiB of %s (up to %.0f MiB of device memory) would "
                           "pass the --gpu-mem budget of %.2f GiB (%.2f GiB in use)",
                           bytes / GiB, what, ceiling / 1048576.0, mem_budget / GiB, mem_total / GiB);
        if (!pin_table)
            pin_table = new (std::nothrow) std::unordered_map<void *, size_t>();
        if (!pin_table)
            return sp_fail(e, -ENOMEM, "gpu: page-locking %s: out of host memory", what);
        mem_total += ceiling;
        mem_part[GPU_MEM_PINNED] += ceiling;
    }
    size_t fr0 = 0, fr1 = 0, tot = 0;
    cudaError_t err = cudaMemGetInfo(&fr0, &tot);
    if (err == cudaSuccess)
        err = cudaHostRegister(p, bytes, cudaHostRegisterPortable | cudaHostRegisterReadOnly);
    if (err == cudaSuccess)
        err = cudaMemGetInfo(&fr1, &tot);
    size_t measured = fr0 > fr1 ? fr0 - fr1 : 0, charged = gpu_mem_pin_charge(bytes, measured);
    std::lock_guard<std::mutex> g(mem_lock);
    if (err == cudaSuccess) {
        try {
            (*pin_table)[p] = charged;
        } catch (...) {
            err = cudaErrorMemoryAllocation;
        }
        if (err != cudaSuccess)
            cudaHostUnregister(p);
    }
    if (err != cudaSuccess) {
        mem_total -= ceiling;
        mem_part[GPU_MEM_PINNED] -= ceiling;
        cudaGetLastError(); /* not sticky: clear it */
        return sp_fail(e, err == cudaErrorMemoryAllocation ? -ENOMEM : -EIO,
                       "gpu: cudaHostRegister of %.2f GiB of %s: %s: %s", bytes / GiB, what,
                       cudaGetErrorName(err), cudaGetErrorString(err));
    }
    mem_total -= ceiling - charged;
    mem_part[GPU_MEM_PINNED] -= ceiling - charged;
    if (mem_total > mem_peak)
        mem_peak = mem_total;
    if (pin)
        *pin = gpu_mem_pin{ measured, charged };
    return 0;
}

extern "C" void gpu_mem_unregister(void *p)
{
    if (!p)
        return;
    std::lock_guard<std::mutex> serial(pin_lock);
    size_t charged;
    {
        std::lock_guard<std::mutex> g(mem_lock);
        if (!pin_table)
            return;
        auto it = pin_table->find(p);
        if (it == pin_table->end())
            return;
        charged = it->second;
        pin_table->erase(it);
    }
    /* outside the ledger's lock (unlocking tens of GiB takes a while); the
     * charge is released once the driver has given the memory back */
    cudaHostUnregister(p);
    cudaGetLastError();
    std::lock_guard<std::mutex> g(mem_lock);
    mem_total -= charged;
    mem_part[GPU_MEM_PINNED] -= charged;
}
