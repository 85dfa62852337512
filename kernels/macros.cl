{# Template macros shared by the kernel families. Tera macros see only their arguments. #}
{% macro vector_helpers(dim, w, c=false) -%}
{% if w == 1 -%}
typedef real real{{ dim }};
#define VLOAD{{ dim }}(p) (*(p))
#define VSTORE{{ dim }}(v, p) (*(p) = (v))
#define UNPACK{{ dim }}(dst, b, v) dst[(b)] = (v);
#define LLOAD{{ dim }}(p) (*(p))
#define LSTORE{{ dim }}(v, p) (*(p) = (v))
{% else -%}
typedef real{{ w }} real{{ dim }};
#define VLOAD{{ dim }}(p) vload{{ w }}(0, (p))
#define VSTORE{{ dim }}(v, p) vstore{{ w }}((v), 0, (p))
#define UNPACK{{ dim }}(dst, b, v) {% for i in range(end=w) %}dst[(b) + {{ i }}] = (v).s{{ i }}; {% endfor %}
// Local-memory vector access at p, which must be aligned to the vector's size: one wide access
// (vload{{ w }} promises only element alignment, and NVIDIA's compiler then splits it into scalars).
#define LLOAD{{ dim }}(p) (*(const __local real{{ dim }}*)(p))
#define LSTORE{{ dim }}(v, p) (*(__local real{{ dim }}*)(p) = (v))
{% endif -%}
// A global load (store) of VW{{ dim }} elements at p, converted from (to) the storage type: one aligned
// vector access when `aligned` (the address is a multiple of the vector's size in storage bytes),
// else one that needs only element alignment (common.cl).
{% if w == 1 -%}
#define GLOAD{{ dim }}(p, aligned) GREAD((p), 0)
#define GSTORE{{ dim }}(v, p, aligned) GWRITE((p), 0, (v))
{% else -%}
#define GLOAD{{ dim }}(p, aligned) GLOAD_VEC({{ w }}, (p), (aligned))
#define GSTORE{{ dim }}(v, p, aligned) GSTORE_VEC({{ w }}, (v), (p), (aligned))
{% endif -%}
{% if c -%}
// The same of C (creal: common.cl).
{% if w == 1 -%}
#define CLOAD{{ dim }}(p, aligned) CREAD((p), 0)
#define CSTORE{{ dim }}(v, p, aligned) CWRITE((p), 0, (v))
{% else -%}
#define CLOAD{{ dim }}(p, aligned) CLOAD_VEC({{ w }}, (p), (aligned))
#define CSTORE{{ dim }}(v, p, aligned) CSTORE_VEC({{ w }}, (v), (p), (aligned))
{% endif -%}
{% endif -%}
{% endmacro vector_helpers %}

{% macro stage(name, R, DIMO, dim) -%}
{% if SWZ == 1 %}// Where element o of row k of the slice lies when the operand is contiguous along K: column
// o ^ SWIZZLE_{{ name }}(k). Such a store is a transpose: the work-items of a warp write one column o of
// KWG / VWK rows VWK apart, which share a bank when {{ R }} is a multiple of the bank count (4-way
// conflicts for KWG = 16, VWK = 4 on NVIDIA's 32 banks). XOR-ing o with a multiple of VW{{ dim }} that
// steps with k / VWK spreads them over the banks; every aligned vector of VW{{ dim }} elements of a row
// stays whole and aligned, and the column stays inside the row ({{ R }} and VW{{ dim }} are powers of two).
#define SWIZZLE_GRAIN_{{ name }} (VW{{ dim }} * (KWG / VWK) >= 32 ? VW{{ dim }} : 32 / (KWG / VWK))
#define SWIZZLE_{{ name }}(k) ((((k) / VWK) * SWIZZLE_GRAIN_{{ name }}) & ({{ R }} - VW{{ dim }}))
{% endif %}// Loads this work-item's share of the {{ R }} x KWG slice of operand {{ name }} at outer index o0 and depth
// k0 into registers r, zero-filling what lies outside `outer` x K (K: the end of this work-group's K range).
// along_outer: the operand is contiguous along its outer dimension; DIMO x (WGS / DIMO) work-items load
// vectors of VW{{ dim }} along it. Otherwise it is contiguous along K; consecutive work-items load
// consecutive vectors of VWK along K. `aligned`: the vectors' addresses are multiples of their size.
inline void load_{{ name }}(real* r, const __global greal* X, const int ld, const int along_outer, const bool aligned,
                     const int outer, const int K, const int o0, const int k0, const int tid) {
    const bool interior = (o0 + {{ R }} <= outer) && (k0 + KWG <= K);
    if (along_outer) {
        const int to = tid % {{ DIMO }};
        const int tk = tid / {{ DIMO }};
        #pragma unroll
        for (int kl = 0; kl < KWG / (WGS / {{ DIMO }}); kl++) {
            const int kk = tk + kl * (WGS / {{ DIMO }});
            #pragma unroll
            for (int ov = 0; ov < {{ R }} / ({{ DIMO }} * VW{{ dim }}); ov++) {
                const int o = (to + ov * {{ DIMO }}) * VW{{ dim }};
                const int q = (kl * ({{ R }} / ({{ DIMO }} * VW{{ dim }})) + ov) * VW{{ dim }};
                const __global greal* x = X + (o0 + o) + (k0 + kk) * ld;
                if (interior) {
                    const real{{ dim }} v = GLOAD{{ dim }}(x, aligned);
                    UNPACK{{ dim }}(r, q, v)
                } else {
                    for (int e = 0; e < VW{{ dim }}; e++) {
                        r[q + e] = (o0 + o + e < outer && k0 + kk < K) ? GREAD(x, e) : ZERO;
                    }
                }
            }
        }
    } else {
        #pragma unroll
        for (int l = 0; l < ({{ R }} * KWG) / (WGS * VWK); l++) {
            const int e = tid + l * WGS;
            const int kv = e % (KWG / VWK), o = e / (KWG / VWK);
            const __global greal* x = X + (k0 + kv * VWK) + (o0 + o) * ld;
            if (interior) {
                const realK v = GLOADK(x, aligned);
                UNPACKK(r, l * VWK, v)
            } else {
                for (int v = 0; v < VWK; v++) {
                    r[l * VWK + v] = (o0 + o < outer && k0 + kv * VWK + v < K) ? GREAD(x, v) : ZERO;
                }
            }
        }
    }
}

{% if DB >= 3 %}// Where row o of a slice contiguous along K starts: KWG elements a row, and KPAD more after every
// STEP_{{ name }} rows (xgemm.cl).
#define KROW_{{ name }}(o) ((o) * KWG + ((o) / STEP_{{ name }}) * KPAD)
// Copies this work-item's share of the {{ R }} x KWG slice of operand {{ name }} at outer index o0 and depth
// k0 straight into the slice lm, zero-filling what lies outside `outer` x K. An operand contiguous
// along its outer dimension lands as store_{{ name }} lays it (lm[k * {{ R }} + o]), shared as load_{{ name }}
// shares it; one contiguous along K lands K-contiguous (lm[KROW_{{ name }}(o) + k]), consecutive work-items
// copying consecutive vectors of VWK along K, so both sides of every copy are whole vectors. With
// -DNVIDIA_CP_ASYNC every copy is an asynchronous cp.async (COPY_VECTOR, COPY_ELEMENT), which
// ASYNC_WAIT completes; elsewhere, and in 16-bit storage, each is a load (converting) and a store.
inline void copy_{{ name }}(__local real* lm, const __global greal* X, const int ld, const int along_outer, const bool aligned,
                     const int outer, const int K, const int o0, const int k0, const int tid) {
    const bool interior = (o0 + {{ R }} <= outer) && (k0 + KWG <= K);
{% if DB == 5 %}    // DB = 5: an interior slice of an operand contiguous along its outer dimension in 16-byte
    // chunks, consecutive work-items copying consecutive chunks, whatever VW{{ dim }} is.
    const int chunk = 16 / (int)sizeof(real);
    if (along_outer && interior && ALIGNED(X, ld, chunk) && {{ R }} % chunk == 0 &&
        ({{ R }} * KWG) % (WGS * chunk) == 0) {
        #pragma unroll
        for (int l = 0; l < ({{ R }} * KWG) / (WGS * chunk); l++) {
            const int c = tid + l * WGS;
            const int kk = c / ({{ R }} / chunk), o = c % ({{ R }} / chunk) * chunk;
            COPY_VECTOR(lm + kk * {{ R }} + o, X + (o0 + o) + (k0 + kk) * ld, chunk);
        }
        return;
    }
{% endif %}    if (along_outer) {
        const int to = tid % {{ DIMO }};
        const int tk = tid / {{ DIMO }};
        #pragma unroll
        for (int kl = 0; kl < KWG / (WGS / {{ DIMO }}); kl++) {
            const int kk = tk + kl * (WGS / {{ DIMO }});
            #pragma unroll
            for (int ov = 0; ov < {{ R }} / ({{ DIMO }} * VW{{ dim }}); ov++) {
                const int o = (to + ov * {{ DIMO }}) * VW{{ dim }};
                const __global greal* x = X + (o0 + o) + (k0 + kk) * ld;
                __local real* l = lm + kk * {{ R }} + o;
                if (interior && aligned) {
                    COPY_VECTOR(l, x, VW{{ dim }});
                } else {
                    for (int e = 0; e < VW{{ dim }}; e++) {
                        COPY_ELEMENT(l + e, x + e, o0 + o + e < outer && k0 + kk < K, X);
                    }
                }
            }
        }
    } else {
        #pragma unroll
        for (int l = 0; l < ({{ R }} * KWG) / (WGS * VWK); l++) {
            const int e = tid + l * WGS;
            const int kv = e % (KWG / VWK), o = e / (KWG / VWK);
            const __global greal* x = X + (k0 + kv * VWK) + (o0 + o) * ld;
            __local real* d = lm + KROW_{{ name }}(o) + kv * VWK;
            if (interior && aligned) {
                COPY_VECTOR(d, x, VWK);
            } else {
                for (int v = 0; v < VWK; v++) {
                    COPY_ELEMENT(d + v, x + v, o0 + o < outer && k0 + kv * VWK + v < K, X);
                }
            }
        }
    }
}

{% endif %}// Stores what load_{{ name }} put in registers r into the slice lm[kk * {{ R }} + o]{% if SWZ == 1 %} (the column
// swizzled when the operand is contiguous along K){% endif %}.
inline void store_{{ name }}(__local real* lm, const real* r, const int along_outer, const int tid) {
    if (along_outer) {
        const int to = tid % {{ DIMO }};
        const int tk = tid / {{ DIMO }};
        #pragma unroll
        for (int kl = 0; kl < KWG / (WGS / {{ DIMO }}); kl++) {
            const int kk = tk + kl * (WGS / {{ DIMO }});
            #pragma unroll
            for (int ov = 0; ov < {{ R }} / ({{ DIMO }} * VW{{ dim }}); ov++) {
                const int o = (to + ov * {{ DIMO }}) * VW{{ dim }};
                const int q = (kl * ({{ R }} / ({{ DIMO }} * VW{{ dim }})) + ov) * VW{{ dim }};
                LSTORE{{ dim }}(VLOAD{{ dim }}(r + q), lm + kk * {{ R }} + o);
            }
        }
    } else {
        #pragma unroll
        for (int l = 0; l < ({{ R }} * KWG) / (WGS * VWK); l++) {
            const int e = tid + l * WGS;
            const int kv = e % (KWG / VWK), o = e / (KWG / VWK);
            #pragma unroll
            for (int v = 0; v < VWK; v++) {
{% if SWZ == 1 %}                const int k = kv * VWK + v;
                lm[k * {{ R }} + (o ^ SWIZZLE_{{ name }}(k))] = r[l * VWK + v];
{% else %}                lm[(kv * VWK + v) * {{ R }} + o] = r[l * VWK + v];
{% endif %}
            }
        }
    }
}
{% if DB == 5 %}
// DB = 5: the next slice of operand {{ name }} into lm, copied now where the operand is contiguous
// along its outer dimension, else loaded into registers r, which land_{{ name }} then stores.
inline void fetch_{{ name }}(__local real* lm, real* r, const __global greal* X, const int ld, const int along_outer,
                      const bool aligned, const int outer, const int K, const int o0, const int k0, const int tid) {
    if (along_outer) {
        copy_{{ name }}(lm, X, ld, along_outer, aligned, outer, K, o0, k0, tid);
    } else {
        load_{{ name }}(r, X, ld, along_outer, aligned, outer, K, o0, k0, tid);
    }
}

inline void land_{{ name }}(__local real* lm, const real* r, const int along_outer, const int tid) {
    if (!along_outer) {
        store_{{ name }}(lm, r, along_outer, tid);
    }
}
{% endif %}{%- endmacro stage %}

{# xgemm's fragments of step `kk` of the local slices a_sl and b_sl (columns swizzled when `swz`), into
   av[slot] and bp[slot], for register prefetch (RP = 1): statements indented by `pad`. #}
{% macro fragments(slot, kk, swz, pad) -%}
{% if swz == 1 %}{{ pad }}const int a_swizzle = a_along_m ? 0 : SWIZZLE_a({{ kk }});
{{ pad }}const int b_swizzle = b_along_n ? 0 : SWIZZLE_b({{ kk }});
{% endif %}{{ pad }}#pragma unroll
{{ pad }}for (int mv = 0; mv < MWI / VWM; mv++) {
{{ pad }}    av[{{ slot }}][mv] = LLOADM(a_sl + ({{ kk }}) * MWG + (ROW_OF(tm, mv * VWM){% if swz == 1 %} ^ a_swizzle{% endif %}));
{{ pad }}}
{{ pad }}#pragma unroll
{{ pad }}for (int nv = 0; nv < NWI / VWN; nv++) {
{{ pad }}    const realN v = LLOADN(b_sl + ({{ kk }}) * NWG + (COL_OF(tn, nv * VWN){% if swz == 1 %} ^ b_swizzle{% endif %}));
{{ pad }}    UNPACKN(bp[{{ slot }}], nv * VWN, v)
{{ pad }}}
{%- endmacro fragments %}

{% macro scale_kernel() -%}
// C = beta * C over an M x N block of C (beta = 0 writes zeros, even over NaN): the whole GEMM when
// alpha = 0 or K = 0, where A and B are not read, and the first step of a split-K GEMM (in 16-bit
// storage, with beta = 0, of its f32 workspace: -DC_F32). Dimension 2 is the batch.
__kernel void scale_c(const int M, const int N, const real beta,
                      __global creal* C, const int c_off, const int c_rs, const int c_cs, const int c_bs) {
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i < M && j < N) {
        const int idx = c_off + get_global_id(2) * c_bs + i * c_rs + j * c_cs;
        CWRITE(C, idx, (beta == ZERO) ? ZERO : beta * CREAD(C, idx));
    }
}
{%- endmacro scale_kernel %}

{% macro transpose_kernel() -%}
// Copies an operand's batch items, each `rows` x `cols` with its columns contiguous (element
// (r, c) at src_off + r * src_ld + c), transposed into dst (element (r, c) at c * dst_ld + r),
// through a 32 x 32 tile in local memory, so that both the reads and the writes are coalesced; bit
// for bit in the storage type (gbits).
// The host runs it before a large launch whose work-groups would otherwise transpose that
// operand's every slice on its way into local memory (Geometry::transposes_first). Work-groups
// of 32 x 8; dimension 2 is the batch.
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void transpose_operand(const int rows, const int cols, const __global gbits* restrict src, const int src_off,
                       const int src_ld, const int src_bs, __global gbits* restrict dst, const int dst_ld,
                       const int dst_bs) {
    __local gbits tile[32][33];
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int c0 = get_group_id(0) * 32;
    const int r0 = get_group_id(1) * 32;
    const __global gbits* s = src + src_off + get_global_id(2) * src_bs;
    __global gbits* d = dst + get_global_id(2) * dst_bs;
    for (int y = ty; y < 32; y += 8) {
        if (r0 + y < rows && c0 + tx < cols) {
            tile[y][tx] = s[(r0 + y) * src_ld + c0 + tx];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int y = ty; y < 32; y += 8) {
        if (c0 + y < cols && r0 + tx < rows) {
            d[(c0 + y) * dst_ld + r0 + tx] = tile[tx][y];
        }
    }
}
{%- endmacro transpose_kernel %}

{% macro atomic_add() -%}
// atomic_add_real(p, v): *p += v atomically into C, where the device can (ATOMIC_ADD_REAL is then
// defined): into f32 or f64 C, and in 16-bit storage into the f32 workspace of -DC_F32 (common.cl),
// never into a 16-bit C.
#if STORAGE_16BIT && !defined(C_F32)
#elif defined(NVIDIA_PTX_RED)
// By one PTX reduction (NVIDIA GPUs; the host passes -DNVIDIA_PTX_RED there): fire and forget,
// where a compare-and-swap loop reads, waits and retries on every collision.
#define ATOMIC_ADD_REAL
#if PRECISION == 64
inline void atomic_add_real(__global creal* p, const real v) {
    asm volatile("red.global.add.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
}
#else
inline void atomic_add_real(__global creal* p, const real v) {
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
#endif
// Else by compare-and-swap on the bits (OpenCL 1.2 has no floating-point atomic add); in f64 only
// where the host passes -DINT64_ATOMICS (the device has cl_khr_int64_base_atomics). The first
// compare-and-swap guesses that *p holds 0 and, where it does not, returns what it holds: every
// access is atomic, where a plain first load of *p would race with the other work-groups' adds
// (a data race in OpenCL's memory model, which Oclgrind reports: scripts/memcheck.sh).
#elif PRECISION == 64 && defined(INT64_ATOMICS)
#define ATOMIC_ADD_REAL
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
inline void atomic_add_real(__global creal* p, const real v) {
    ulong old = 0;
    for (;;) {
        const ulong seen = atom_cmpxchg((volatile __global ulong*)p, old, as_ulong(as_double(old) + v));
        if (seen == old) break;
        old = seen;
    }
}
#elif PRECISION == 32
#define ATOMIC_ADD_REAL
inline void atomic_add_real(__global creal* p, const real v) {
    uint old = 0;
    for (;;) {
        const uint seen = atomic_cmpxchg((volatile __global uint*)p, old, as_uint(as_float(old) + v));
        if (seen == old) break;
        old = seen;
    }
}
#endif
{%- endmacro atomic_add %}

{% macro split_flags() -%}
#if STORAGE_16BIT && !defined(C_F32)
#error "split K and stream-K add into C atomically, in f32 or f64 only: in f16 and bf16 the host builds them with -DC_F32"
#endif
#if defined(NVIDIA_PTX_RED)
// The flags of split K on NVIDIA GPUs: the split that stores a tile of C releases it by setting its
// flag to `epoch`, and the splits that add into it wait for that first. Every work-item of the
// work-group calls both (each holds a barrier); work-item 0 touches the flag.
inline void wait_for_release(volatile __global uint* flag, const uint epoch, const int tid) {
    if (tid == 0) {
        while (*flag != epoch) {}
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
}
// Every work-item's stores reach the device's memory before the flag does.
inline void release_tile(volatile __global uint* flag, const uint epoch, const int tid) {
    asm volatile("membar.gl;" ::: "memory");
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (tid == 0) {
        atomic_xchg(flag, epoch);
    }
}
#endif
{%- endmacro split_flags %}
