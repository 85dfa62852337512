/* The libclblast.so.1 shim (scripts/install.sh builds it into lib/fewfit/clblast-shim/): no code
 * of its own, only two dependencies, in this order: libfewfit.so.0 (built with clblast-compat)
 * and libclblast-real.so.1, a link in the shim's folder to the real CLBlast. A program that loads
 * "libclblast.so.1" (dlopen, or its DT_NEEDED entry) with that folder first on LD_LIBRARY_PATH gets
 * this shim; dlsym on its handle, and the loader for a linked program, search the shim's
 * dependencies breadth first, so the names fewfit exports (CLBlast's GEMM and cache calls, C and
 * C++, float and double) resolve to fewfit and every other name to the real CLBlast. */
const char fewfit_clblast_shim[] = "fewfit libclblast.so.1 shim";
