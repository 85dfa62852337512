{% import "macros.cl" as macros %}
{% include "common.cl" %}

// Tiled GEMM. A work-group computes an MWG x NWG tile of C with MDIMC x NDIMC work-items; each
// work-item holds an MWI x NWI register tile. The K loop stages KWG-deep slices of A and B in local
// memory (when SA / SB are 1): each work-item loads its share into registers, then stores it to local
// memory, with MDIMA x KDIMA and NDIMB x KDIMB work-item shapes for operands contiguous along M / N, and
// vectors of VWK along K for operands contiguous along K. With DB = 1 there are two local buffers: the
// next slice is loaded into registers before the current one is multiplied and stored into the other
// buffer after, with one barrier per slice. DB = 2 stages the two operands in turn (both must be in
// local memory): A's next slice is loaded before the multiply and stored halfway through it, when
// B's is loaded, stored after it; half the staging registers are live at a time. DB = 3 / 4 copy
// the slices straight from global into local memory, into two / three buffers, one / two slices
// ahead of the multiply, with no staging registers and one barrier per slice: on NVIDIA GPUs of
// compute capability 8.0 or later (-DNVIDIA_CP_ASYNC) by asynchronous cp.async, elsewhere by a
// load and a store each. A copy cannot transpose, so there an operand contiguous along K stays
// so in its slice, and each KWI step reads KWI of its values per row or column at once; the slices
// are aligned to 64 bytes, for the widest vector a copy or read may use. Such a slice's rows are
// padded by KPAD elements after each run of rows that one work-item reads (KROW_a, KROW_b): the
// rows the work-items of a warp read at once would otherwise lie a multiple of 128 bytes apart, in
// the same banks (a 16-way conflict where A is contiguous along K, as in a row-major NT call). DB = 5
// is DB = 1 whose operands contiguous along M / N are copied as DB = 3 copies them, into the layout
// DB = 1 stores (no staging registers, no store); only an operand contiguous along K, which the store
// transposes, goes through registers. With KSPLIT > 1,
// launch dimension 2 runs batch x KSPLIT: each split multiplies one range of K and adds alpha times
// its product into C atomically (the host first scales C by beta). On NVIDIA GPUs
// (-DNVIDIA_PTX_RED) the host does not scale C: split 0 of each tile stores alpha * its product +
// beta * C as an unsplit launch does, then releases the tile by a flag; the other splits wait for
// that flag before they add. Waiting is safe because work-groups
// start in the order of their index and split 0 has the lowest of its tile. In 16-bit storage the
// host builds a program that splits with -DC_F32 and passes an f32 workspace as C (common.cl). With KSPLIT = 0 the host
// chooses the number of splits (at least 2) per launch, the `k_splits` argument, and runs the
// KSPLIT = 1 program where it does not split. With SK > 0 (stream-K), the launch is SK work-groups
// per compute unit along dimension 0, which share the (batch item, tile, KWG-deep step of K)
// iterations evenly, each a contiguous range of them: a tile that falls into two or more ranges is
// finished by adding into C as the splits of K are (above; the range that holds the tile's first step
// stores). Each work-group takes its tiles from its last to its first, so it stores and releases
// the tile it begins before it waits for the one it ends with, which the work-group before it
// began. With SWZ = 1 the local slices of an operand contiguous
// along K are stored with swizzled columns, free of bank conflicts (macros.cl). Tiles that cross the
// edge of C or of K are loaded with bounds checks and zero fill; interior tiles with vector loads.
// Any M, N, K works; nothing is padded or copied.
#define WGS (MDIMC * NDIMC)
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define KDIMA (WGS / MDIMA)
#define KDIMB (WGS / NDIMB)
#define DB_BUFFERS (DB == 0 ? 1 : DB <= 2 || DB == 5 ? 2 : DB - 1)
// DB = 3 / 4: every slice lands by copies, operands contiguous along K kept so (padded, KPAD).
#define DB_COPIES (DB == 3 || DB == 4)
// DB_COPIES: the padding after each run of rows a work-item reads in a slice contiguous along K, in
// elements: 16 bytes (a cp.async chunk stays aligned) or KWI elements (a KWI-wide read stays aligned).
#define KPAD (KWI * PRECISION / 8 > 16 ? KWI : 128 / PRECISION)
// The rows between two consecutive work-items' first rows (ROW_OF, COL_OF).
#define STEP_a (STRM == 0 ? MWI : VWM)
#define STEP_b (STRN == 0 ? NWI : VWN)
// Elements of one buffer of each operand's slice: with DB_COPIES the padding included and the whole
// rounded up to 64 bytes, so that every buffer starts aligned.
#define ROUND_64B(e) (((e) + 512 / PRECISION - 1) / (512 / PRECISION) * (512 / PRECISION))
#define SLICE_a (DB_COPIES ? ROUND_64B(KWG * MWG + (MWG / STEP_a) * KPAD) : KWG * MWG)
#define SLICE_b (DB_COPIES ? ROUND_64B(KWG * NWG + (NWG / STEP_b) * KPAD) : KWG * NWG)

// The row (within the tile) of a work-item's mi-th register row, and likewise for columns.
#if STRM == 0
#define ROW_OF(tm, mi) ((tm) * MWI + (mi))
#else
#define ROW_OF(tm, mi) (((mi) / VWM) * (MDIMC * VWM) + (tm) * VWM + (mi) % VWM)
#endif
#if STRN == 0
#define COL_OF(tn, ni) ((tn) * NWI + (ni))
#else
#define COL_OF(tn, ni) (((ni) / VWN) * (NDIMC * VWN) + (tn) * VWN + (ni) % VWN)
#endif

// Whether every vector of w elements at X + i + j * ld (i a multiple of w) is aligned to its size
// (in storage bytes); of A or B, and of C.
#define ALIGNED(X, ld, w) ((((size_t)(X)) % ((w) * sizeof(gbits)) == 0) && ((ld) % (w) == 0))
#define C_ALIGNED(X, ld, w) ((((size_t)(X)) % ((w) * sizeof(cbits)) == 0) && ((ld) % (w) == 0))

{{ macros::vector_helpers(dim="M", w=VWM, c=true) }}
{{ macros::vector_helpers(dim="N", w=VWN) }}
{{ macros::vector_helpers(dim="K", w=VWK) }}
{% if DB == 3 or DB == 4 %}{{ macros::vector_helpers(dim="I", w=KWI) }}{% endif %}
{% if DB >= 3 %}#if defined(NVIDIA_CP_ASYNC) && !STORAGE_16BIT
// Asynchronous copies from global to local memory (PTX cp.async, compute capability 8.0 or later):
// `bytes` of 4 or 8 from s, the rest of the element zero-filled; or a whole 16-byte chunk. Elements
// land as stored, so 16-bit storage, which converts, copies by a load and a store (below).
inline void cp_async_4(__local real* d, const __global real* s, const int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"((uint)(size_t)d), "l"(s), "r"(bytes) : "memory");
}
inline void cp_async_8(__local real* d, const __global real* s, const int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"((uint)(size_t)d), "l"(s), "r"(bytes) : "memory");
}
inline void cp_async_16(__local real* d, const __global real* s) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((uint)(size_t)d), "l"(s) : "memory");
}
// w elements from s to d, both aligned to the vector of w.
inline void copy_vector(__local real* d, const __global real* s, const int w) {
    const int bytes = w * (int)sizeof(real);
    if (bytes == 4) {
        cp_async_4(d, s, 4);
    } else if (bytes == 8) {
        cp_async_8(d, s, 8);
    } else {
        for (int c = 0; c < bytes / 16; c++) {
            cp_async_16(d + c * (16 / (int)sizeof(real)), s + c * (16 / (int)sizeof(real)));
        }
    }
}
#define COPY_VECTOR(d, s, w) copy_vector((d), (s), (w))
// One element from s, or zero when not `inside` (then nothing is read; `base` is a valid address).
#if PRECISION == 64
#define COPY_ELEMENT(d, s, inside, base) cp_async_8((d), (inside) ? (s) : (base), (inside) ? 8 : 0)
#else
#define COPY_ELEMENT(d, s, inside, base) cp_async_4((d), (inside) ? (s) : (base), (inside) ? 4 : 0)
#endif
// Closes the group of copies issued since the last commit; waits until at most n groups are pending.
#define ASYNC_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define ASYNC_WAIT(n) asm volatile("cp.async.wait_group " #n ";" ::: "memory")
#else
#define COPY_VECTOR(d, s, w) for (int c_ = 0; c_ < (w); c_++) { (d)[c_] = GREAD((s), c_); }
#define COPY_ELEMENT(d, s, inside, base) (*(d) = (inside) ? GREAD((s), 0) : ZERO)
#define ASYNC_COMMIT()
#define ASYNC_WAIT(n)
#endif
{% endif %}{% if SA == 1 %}{{ macros::stage(name="a", R="MWG", DIMO="MDIMA", dim="M") }}{% endif %}
{% if SB == 1 %}{{ macros::stage(name="b", R="NWG", DIMO="NDIMB", dim="N") }}{% endif %}
{% if KSPLIT != 1 or SK != 0 %}{{ macros::atomic_add() }}
{{ macros::split_flags() }}{% endif %}
{% if TRANSPOSING_STORES %}{{ macros::transpose_kernel() }}{% endif %}
inline void xgemm_body(const int M, const int N, const int K, {% if SK != 0 %}const int m0, const int n0, const int kb, const int ke, const int batch{% else %}const int split, const int splits{% endif %}, const real alpha, const real beta,
                       const __global greal* restrict A, const int lda, const int a_along_m,
                       const __global greal* restrict B, const int ldb, const int b_along_n,
                       __global creal* C, const int ldc, __local real* alm, __local real* blm{% if KSPLIT != 1 or SK != 0 %},
                       volatile __global uint* tile_flags, const uint epoch{% endif %}) {
    const int tm = get_local_id(0);
    const int tn = get_local_id(1);
    const int tid = tm + tn * MDIMC;
{% if SK == 0 %}    const int m0 = get_group_id(0) * MWG;
    const int n0 = get_group_id(1) * NWG;
{% endif %}{% if KSPLIT != 1 %}
    // This split's range of K: [kb, ke), a multiple of KWG long.
    const int kchunk = ((K - 1) / (splits * KWG) + 1) * KWG;
    const int kb = (int)min((long)K, (long)split * kchunk);
    const int ke = (int)min((long)K, (long)kb + kchunk);
{% elif SK == 0 %}
    const int kb = 0;
    const int ke = K;
{% endif %}
{% if SA == 1 %}{% if DB <= 2 or DB == 5 %}    real ra[MWG * KWG / WGS];
{% endif %}    const bool a_aligned = a_along_m ? ALIGNED(A, lda, VWM) : ALIGNED(A, lda, VWK);
{% endif %}{% if SB == 1 %}{% if DB <= 2 or DB == 5 %}    real rb[NWG * KWG / WGS];
{% endif %}    const bool b_aligned = b_along_n ? ALIGNED(B, ldb, VWN) : ALIGNED(B, ldb, VWK);
{% endif %}
    // Accumulators: for each of the NWI columns, MWI / VWM vectors of VWM rows (SIMD on CPUs).
    realM acc[MWI / VWM][NWI];
    #pragma unroll
    for (int mv = 0; mv < MWI / VWM; mv++) {
        #pragma unroll
        for (int ni = 0; ni < NWI; ni++) {
            acc[mv][ni] = (realM)(ZERO);
        }
    }
{% if DB == 3 or DB == 4 %}
    // The first DB_BUFFERS - 1 slices into buffers 0, 1, ..., a group of copies each.
    #pragma unroll
    for (int s = 0; s < DB_BUFFERS - 1; s++) {
        if (kb + s * KWG < ke) {
            copy_a(alm + s * SLICE_a, A, lda, a_along_m, a_aligned, M, ke, m0, kb + s * KWG, tid);
            copy_b(blm + s * SLICE_b, B, ldb, b_along_n, b_aligned, N, ke, n0, kb + s * KWG, tid);
        }
        ASYNC_COMMIT();
    }
    int buf = 0;
{% elif DB == 5 %}
    // Slice kb into buffer 0: copied where the operand is contiguous along M / N, else staged.
    if (kb < ke) {
        fetch_a(alm, ra, A, lda, a_along_m, a_aligned, M, ke, m0, kb, tid);
        land_a(alm, ra, a_along_m, tid);
        fetch_b(blm, rb, B, ldb, b_along_n, b_aligned, N, ke, n0, kb, tid);
        land_b(blm, rb, b_along_n, tid);
    }
    ASYNC_COMMIT();
    ASYNC_WAIT(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
{% elif DB >= 1 %}
    // Slice kb into buffer 0.
    if (kb < ke) {
{% if SA == 1 %}        load_a(ra, A, lda, a_along_m, a_aligned, M, ke, m0, kb, tid);
        store_a(alm, ra, a_along_m, tid);
{% endif %}{% if SB == 1 %}        load_b(rb, B, ldb, b_along_n, b_aligned, N, ke, n0, kb, tid);
        store_b(blm, rb, b_along_n, tid);
{% endif %}    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
{% endif %}
    for (int k0 = kb; k0 < ke; k0 += KWG) {
{% if DB == 3 or DB == 4 %}        // This slice's copies have landed (this work-item's, then by the barrier everyone's), and
        // every work-item has multiplied the slice before, whose buffer now takes the slice
        // DB_BUFFERS - 1 ahead.
        ASYNC_WAIT({{ DB - 3 }});
        barrier(CLK_LOCAL_MEM_FENCE);
        {
            const int ka = k0 + (DB_BUFFERS - 1) * KWG;
            const int ba = (buf + DB_BUFFERS - 1) % DB_BUFFERS;
            if (ka < ke) {
                copy_a(alm + ba * SLICE_a, A, lda, a_along_m, a_aligned, M, ke, m0, ka, tid);
                copy_b(blm + ba * SLICE_b, B, ldb, b_along_n, b_aligned, N, ke, n0, ka, tid);
            }
            ASYNC_COMMIT();
        }
        const __local real* a_sl = alm + buf * SLICE_a;
        const __local real* b_sl = blm + buf * SLICE_b;
{% elif DB == 5 %}        // The next slice: copies into the other buffer now, for an operand contiguous along M / N;
        // otherwise loaded into registers now and stored after the multiply.
        const bool more = k0 + KWG < ke;
        if (more) {
            fetch_a(alm + (buf ^ 1) * SLICE_a, ra, A, lda, a_along_m, a_aligned, M, ke, m0, k0 + KWG, tid);
            fetch_b(blm + (buf ^ 1) * SLICE_b, rb, B, ldb, b_along_n, b_aligned, N, ke, n0, k0 + KWG, tid);
        }
        ASYNC_COMMIT();
        const __local real* a_sl = alm + buf * SLICE_a;
        const __local real* b_sl = blm + buf * SLICE_b;
{% elif DB >= 1 %}        // Load the next slice into registers now and store it into the other buffer after the
        // multiply; with DB = 2, B's is loaded halfway through, when A's is stored.
        const bool more = k0 + KWG < ke;
        if (more) {
{% if SA == 1 %}            load_a(ra, A, lda, a_along_m, a_aligned, M, ke, m0, k0 + KWG, tid);
{% endif %}{% if SB == 1 and DB == 1 %}            load_b(rb, B, ldb, b_along_n, b_aligned, N, ke, n0, k0 + KWG, tid);
{% endif %}        }
{% if SA == 1 %}        const __local real* a_sl = alm + buf * SLICE_a;
{% endif %}{% if SB == 1 %}        const __local real* b_sl = blm + buf * SLICE_b;
{% endif %}{% else %}{% if SA == 1 %}        load_a(ra, A, lda, a_along_m, a_aligned, M, ke, m0, k0, tid);
        store_a(alm, ra, a_along_m, tid);
        const __local real* a_sl = alm;
{% endif %}{% if SB == 1 %}        load_b(rb, B, ldb, b_along_n, b_aligned, N, ke, n0, k0, tid);
        store_b(blm, rb, b_along_n, tid);
        const __local real* b_sl = blm;
{% endif %}{% if SA == 1 or SB == 1 %}        barrier(CLK_LOCAL_MEM_FENCE);
{% endif %}{% endif %}{% if RP != 0 %}{% if RP == 2 %}        // RP = 2: register prefetch only where both operands are contiguous along K (row-major NT).
        if (!a_along_m && !b_along_n) {
{% elif RP == 3 %}        // RP = 3: register prefetch except where only B is contiguous along K (row-major NN).
        if (!a_along_m || b_along_n) {
{% endif %}
        // Register prefetch: step kk + 1's fragments are read from the local slices before step kk's
        // products, so that the reads' latency hides behind the FMAs whatever the compiler schedules.
        realM av[2][MWI / VWM];
        real bp[2][NWI];
        {
{{ macros::fragments(slot="0", kk="0", swz=SWZ, pad="            ") }}
        }
        #pragma unroll
        for (int kk = 0; kk < KWG; kk++) {
{% if DB == 2 %}            if (kk == KWG / 2 && more) {
                store_a(alm + (buf ^ 1) * SLICE_a, ra, a_along_m, tid);
                load_b(rb, B, ldb, b_along_n, b_aligned, N, ke, n0, k0 + KWG, tid);
            }
{% endif %}            if (kk + 1 < KWG) {
{{ macros::fragments(slot="(kk + 1) % 2", kk="kk + 1", swz=SWZ, pad="                ") }}
            }
            #pragma unroll
            for (int mv = 0; mv < MWI / VWM; mv++) {
                #pragma unroll
                for (int ni = 0; ni < NWI; ni++) {
                    acc[mv][ni] = fma(av[kk % 2][mv], (realM)(bp[kk % 2][ni]), acc[mv][ni]);
                }
            }
        }
{% if RP >= 2 %}        } else {
{% endif %}{% endif %}{% if RP != 1 %}
        #pragma unroll
        for (int kw = 0; kw < KWG; kw += KWI) {
{% if DB == 2 %}            if (kw == KWG / 2 && more) {
                store_a(alm + (buf ^ 1) * SLICE_a, ra, a_along_m, tid);
                load_b(rb, B, ldb, b_along_n, b_aligned, N, ke, n0, k0 + KWG, tid);
            }
{% endif %}{% if DB == 3 or DB == 4 %}            // The KWI values of this step of each row / column of an operand contiguous along K.
            real ak[MWI][KWI];
            real bk[NWI][KWI];
            if (!a_along_m) {
                #pragma unroll
                for (int mi = 0; mi < MWI; mi++) {
                    const realI v = LLOADI(a_sl + KROW_a(ROW_OF(tm, mi)) + kw);
                    UNPACKI(ak[mi], 0, v)
                }
            }
            if (!b_along_n) {
                #pragma unroll
                for (int ni = 0; ni < NWI; ni++) {
                    const realI v = LLOADI(b_sl + KROW_b(COL_OF(tn, ni)) + kw);
                    UNPACKI(bk[ni], 0, v)
                }
            }
{% endif %}            #pragma unroll
            for (int ki = 0; ki < KWI; ki++) {
                const int kk = kw + ki;
                realM av[MWI / VWM];
                real bp[NWI];
{% if SA == 1 and SWZ == 1 and DB != 3 and DB != 4 %}                const int a_swizzle = a_along_m ? 0 : SWIZZLE_a(kk);
{% endif %}{% if SB == 1 and SWZ == 1 and DB != 3 and DB != 4 %}                const int b_swizzle = b_along_n ? 0 : SWIZZLE_b(kk);
{% endif %}{% if DB == 3 or DB == 4 %}                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    if (a_along_m) {
                        av[mv] = LLOADM(a_sl + kk * MWG + ROW_OF(tm, mv * VWM));
                    } else {
                        real* e = (real*)&av[mv];
                        for (int v = 0; v < VWM; v++) {
                            e[v] = ak[mv * VWM + v][ki];
                        }
                    }
                }
                #pragma unroll
                for (int nv = 0; nv < NWI / VWN; nv++) {
                    if (b_along_n) {
                        const realN v = LLOADN(b_sl + kk * NWG + COL_OF(tn, nv * VWN));
                        UNPACKN(bp, nv * VWN, v)
                    } else {
                        for (int v = 0; v < VWN; v++) {
                            bp[nv * VWN + v] = bk[nv * VWN + v][ki];
                        }
                    }
                }
{% elif SA == 1 %}                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    av[mv] = LLOADM(a_sl + kk * MWG + (ROW_OF(tm, mv * VWM){% if SWZ == 1 %} ^ a_swizzle{% endif %}));
                }
{% else %}                const int p = k0 + kk;
                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    const int i0 = m0 + ROW_OF(tm, mv * VWM);
                    if (a_along_m && i0 + VWM <= M && p < ke) {
                        av[mv] = GLOADM(A + i0 + p * lda, false);
                    } else {
                        real* e = (real*)&av[mv];
                        for (int v = 0; v < VWM; v++) {
                            e[v] = (i0 + v < M && p < ke) ? A_AT(i0 + v, p) : ZERO;
                        }
                    }
                }
{% endif %}{% if DB == 3 or DB == 4 %}{% elif SB == 1 %}                #pragma unroll
                for (int nv = 0; nv < NWI / VWN; nv++) {
                    const realN v = LLOADN(b_sl + kk * NWG + (COL_OF(tn, nv * VWN){% if SWZ == 1 %} ^ b_swizzle{% endif %}));
                    UNPACKN(bp, nv * VWN, v)
                }
{% else %}                #pragma unroll
                for (int ni = 0; ni < NWI; ni++) {
                    const int j = n0 + COL_OF(tn, ni), p = k0 + kk;
                    bp[ni] = (j < N && p < ke) ? B_AT(p, j) : ZERO;
                }
{% endif %}                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    #pragma unroll
                    for (int ni = 0; ni < NWI; ni++) {
                        acc[mv][ni] = fma(av[mv], (realM)(bp[ni]), acc[mv][ni]);
                    }
                }
            }
        }
{% if RP >= 2 %}        }
{% endif %}{% endif %}{% if DB == 3 or DB == 4 %}        buf = (buf + 1) % DB_BUFFERS;
{% elif DB == 5 %}        if (more) {
            land_a(alm + (buf ^ 1) * SLICE_a, ra, a_along_m, tid);
            land_b(blm + (buf ^ 1) * SLICE_b, rb, b_along_n, tid);
        }
        // This work-item's copies have landed, and by the barrier everyone's and every store.
        ASYNC_WAIT(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        buf ^= 1;
{% elif DB >= 1 %}        if (more) {
{% if SA == 1 and DB == 1 %}            store_a(alm + (buf ^ 1) * SLICE_a, ra, a_along_m, tid);
{% endif %}{% if SB == 1 %}            store_b(blm + (buf ^ 1) * SLICE_b, rb, b_along_n, tid);
{% endif %}        }
        barrier(CLK_LOCAL_MEM_FENCE);
        buf ^= 1;
{% elif SA == 1 or SB == 1 %}        barrier(CLK_LOCAL_MEM_FENCE);
{% endif %}    }

{% if KSPLIT != 1 or SK != 0 %}#if defined(NVIDIA_PTX_RED)
{% if SK != 0 %}    // The range that holds the tile's first step of K stores; the others wait until it has released
    // the tile, then add.
    volatile __global uint* tile_flag = tile_flags + (batch * ((N + NWG - 1) / NWG) + n0 / NWG) * ((M + MWG - 1) / MWG) + m0 / MWG;
    const bool adds = kb != 0;
{% else %}    // Split 0 stores; the others wait until it has released the tile, then add. The flag's address
    // is computed here, not kept in registers through the K loop.
    volatile __global uint* tile_flag = tile_flags +
        (get_group_id(2) / splits * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) + get_group_id(0);
    const bool adds = split != 0;
{% endif %}
    if (adds && kb < ke) {
        wait_for_release(tile_flag, epoch, tid);
    }
#else
    const bool adds = true;
#endif
    // Element by element, C += alpha * acc atomically (C holds beta * C or more, and the other splits
    // add their parts), or for the split that stores, C = alpha * acc + beta * C. One loop for both
    // keeps the program's registers those of the adds alone (vector stores here cost the H200's
    // 128 x 128 tiles half their occupancy).
    #pragma unroll
    for (int ni = 0; ni < NWI; ni++) {
        const int j = n0 + COL_OF(tn, ni);
        #pragma unroll
        for (int mv = 0; mv < MWI / VWM; mv++) {
            const int i0 = m0 + ROW_OF(tm, mv * VWM);
            const real* e = (const real*)&acc[mv][ni];
            if (j < N && kb < ke) {
                for (int v = 0; v < VWM && i0 + v < M; v++) {
                    __global creal* c = C + i0 + v + j * ldc;
                    const real r = alpha * e[v];
                    if (adds) {
                        atomic_add_real(c, r);
                    } else {
                        CWRITE(c, 0, (beta == ZERO) ? r : fma(beta, CREAD(c, 0), r));
                    }
                }
            }
        }
    }
#if defined(NVIDIA_PTX_RED)
    if (!adds) {
        release_tile(tile_flag, epoch, tid);
    }
#endif
{% else %}    // C = alpha * acc + beta * C (C is not read when beta = 0), a vector at a time inside C.
    const bool c_aligned = C_ALIGNED(C, ldc, VWM);
    #pragma unroll
    for (int ni = 0; ni < NWI; ni++) {
        const int j = n0 + COL_OF(tn, ni);
        #pragma unroll
        for (int mv = 0; mv < MWI / VWM; mv++) {
            const int i0 = m0 + ROW_OF(tm, mv * VWM);
            __global creal* c = C + i0 + j * ldc;
            if (j < N && i0 + VWM <= M) {
                const realM r = alpha * acc[mv][ni];
                CSTOREM((beta == ZERO) ? r : fma((realM)(beta), CLOADM(c, c_aligned), r), c, c_aligned);
            } else if (j < N) {
                const real* e = (const real*)&acc[mv][ni];
                for (int v = 0; v < VWM && i0 + v < M; v++) {
                    CWRITE(c, v, (beta == ZERO) ? alpha * e[v] : fma(alpha, e[v], beta * CREAD(c, v)));
                }
            }
        }
    }
{% endif %}}

// One entry point per operand layout: am/ak = A contiguous along M/K, bk/bn = B along K/N.
// Dimension 2 of the launch is the batch times the splits of K: item b reads A, B and C shifted by
// b * a_bs, b_bs, c_bs. `k_splits` is the host's number of splits for KSPLIT = 0, the batch items for
// SK > 0 (whose launch has one item along dimension 2), ignored otherwise.
// On NVIDIA GPUs a program that splits K also takes one flag per tile and batch item, which split 0
// sets to `epoch`, a value the host has never given these flags before.
{% for a in ["m", "k"] %}{% for b in ["k", "n"] %}
__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void xgemm_a{{ a }}_b{{ b }}(const int M, const int N, const int K, const real alpha, const real beta,
                   const __global greal* restrict A, const int a_off, const int lda,
                   const __global greal* restrict B, const int b_off, const int ldb,
                   __global creal* C, const int c_off, const int ldc,
                   const int a_bs, const int b_bs, const int c_bs, const int k_splits{% if KSPLIT != 1 or SK != 0 %}
#if defined(NVIDIA_PTX_RED)
                   , volatile __global uint* tile_flags, const uint epoch
#endif
{% endif %}) {
{% if SK == 0 %}    const int splits = {% if KSPLIT == 0 %}k_splits{% else %}KSPLIT{% endif %};
    const int batch = get_global_id(2) / splits;
    const int split = get_global_id(2) % splits;
{% endif %}{% if KSPLIT != 1 or SK != 0 %}#if !defined(NVIDIA_PTX_RED)
    volatile __global uint* tile_flags = 0;
    const uint epoch = 0;
#endif
{% endif %}{% if SA == 1 %}    __local real alm[DB_BUFFERS * SLICE_a] __attribute__((aligned({% if DB >= 3 %}64{% else %}sizeof(realM){% endif %})));
{% else %}    __local real* alm = 0;
{% endif %}{% if SB == 1 %}    __local real blm[DB_BUFFERS * SLICE_b] __attribute__((aligned({% if DB >= 3 %}64{% else %}sizeof(realN){% endif %})));
{% else %}    __local real* blm = 0;
{% endif %}{% if SK != 0 %}    // This work-group's range [begin, end) of the steps of K of all tiles of all batch items, taken
    // a tile at a time from the end.
    const int tiles_m = (M + MWG - 1) / MWG;
    const int tiles = tiles_m * ((N + NWG - 1) / NWG);
    const long steps = (K + KWG - 1) / KWG;
    const long total = (long)tiles * k_splits * steps;
    const long begin = total * get_group_id(0) / get_num_groups(0);
    long end = total * (get_group_id(0) + 1) / get_num_groups(0);
    while (end > begin) {
        const long t = (end - 1) / steps;
        const long first = max(begin, t * steps);
        const int batch = (int)(t / tiles);
        const int tile = (int)(t % tiles);
        xgemm_body(M, N, K, (tile % tiles_m) * MWG, (tile / tiles_m) * NWG, (int)(first - t * steps) * KWG,
                   (int)min((long)K, (end - t * steps) * KWG), batch, alpha, beta, A + a_off + batch * a_bs, lda, {{ a == "m" }},
                   B + b_off + batch * b_bs, ldb, {{ b == "n" }}, C + c_off + batch * c_bs, ldc, alm, blm, tile_flags, epoch);
        // Every work-item is done with the local slices before the next tile's first ones land.
        barrier(CLK_LOCAL_MEM_FENCE);
        end = first;
    }
{% else %}    xgemm_body(M, N, K, split, splits, alpha, beta, A + a_off + batch * a_bs, lda, {{ a == "m" }},
               B + b_off + batch * b_bs, ldb, {{ b == "n" }}, C + c_off + batch * c_bs, ldc, alm, blm{% if KSPLIT != 1 %},
               tile_flags, epoch{% endif %});
{% endif %}}
{% endfor %}{% endfor %}
{% if KSPLIT != 1 or SK != 0 %}
{{ macros::scale_kernel() }}
{% endif %}
