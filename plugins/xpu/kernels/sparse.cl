// Sparse CSR kernels (plugin_abi.h: XD_OP_CSR_ADDMM, XD_OP_CSR_TO_DENSE), in the batched form the
// host always passes: crow [B, M+1], col [B, nnz], values [B, nnz], contiguous, invariants
// checked by the host (columns of a row sorted, distinct, in range). i32 and i64 indices share
// one entry point: `idx64` is uniform over the launch, so the branch costs nothing measurable and
// the modules stay one per value dtype.
//
//   xd_csr_mm        one work-group per output row (dim 0), work-items across N (dim 1 holds
//                    column blocks of group * XD_CSR_COLS). The group stages its row's entries in
//                    local memory, a chunk of `group` at a time, then every work-item adds
//                    value * b[col, j] for its XD_CSR_COLS columns j = j0 + lid + u*group:
//                    neighbouring work-items read neighbouring elements of a row of b (coalesced).
//                    Each output sums its products in entry order, in CT, without fma (FP_CONTRACT
//                    is off), and rounds once: the CPU reference's result bit for bit.
//   xd_csr_to_dense  one work-group per row: zero the row, then scatter its entries.

#if XD_FLOATING

#define XD_CSR_COLS 4
#define XD_CSR_MAX_WG 256

typedef struct {
  long batch, m, n, nnz;
  long b_off, b_b, b_k, b_n;
  long c_off, c_b, c_m, c_n;
  long i_off, i_b, i_m, i_n;
  long crow_off, col_off, val_off;
  long idx64;
  long has_input;
  long alpha_d, beta_d;  // double bits
  float alpha_f, beta_f;
} xd_csr;

#if XD_CLASS == 2
#define XD_CSR_ALPHA(G) as_double((G).alpha_d)
#define XD_CSR_BETA(G) as_double((G).beta_d)
#else
#define XD_CSR_ALPHA(G) ((G).alpha_f)
#define XD_CSR_BETA(G) ((G).beta_f)
#endif

inline long xd_csr_index(__global const uchar* p, long idx64, long i) {
  return idx64 ? ((__global const long*)p)[i] : (long)((__global const int*)p)[i];
}

__kernel void xd_csr_mm(__global T* c, __global const uchar* crow, __global const uchar* col, __global const T* val,
                        __global const T* b, __global const T* in, const xd_csr G, long row0) {
  __local long lcol[XD_CSR_MAX_WG];
  __local CT lval[XD_CSR_MAX_WG];
  const int lid = (int)get_local_id(0);
  const int group = (int)get_local_size(0);
  const long r = row0 + (long)get_group_id(0);  // over batch * m
  const long bt = r / G.m, i = r - bt * G.m;
  const long j0 = (long)get_group_id(1) * group * XD_CSR_COLS + lid;
  const long rbase = G.crow_off + bt * (G.m + 1) + i;
  const long p0 = xd_csr_index(crow, G.idx64, rbase), p1 = xd_csr_index(crow, G.idx64, rbase + 1);
  const long nzbase = bt * G.nnz;
  const long bbase = G.b_off + bt * G.b_b;
  CT acc[XD_CSR_COLS];
#pragma unroll
  for (int u = 0; u < XD_CSR_COLS; ++u) acc[u] = (CT)0;
  for (long q0 = p0; q0 < p1; q0 += group) {
    const long q = q0 + lid;
    if (q < p1) {
      lcol[lid] = xd_csr_index(col, G.idx64, G.col_off + nzbase + q);
      lval[lid] = XD_LD(val, G.val_off + nzbase + q);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int count = (int)min((long)group, p1 - q0);
    for (int e = 0; e < count; ++e) {
      const CT v = lval[e];
      const long brow = bbase + lcol[e] * G.b_k;
#pragma unroll
      for (int u = 0; u < XD_CSR_COLS; ++u) {
        const long j = j0 + (long)u * group;
        if (j < G.n) acc[u] += v * XD_LD(b, brow + j * G.b_n);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#pragma unroll
  for (int u = 0; u < XD_CSR_COLS; ++u) {
    const long j = j0 + (long)u * group;
    if (j >= G.n) continue;
    CT v = XD_CSR_ALPHA(G) * acc[u];
    if (G.has_input) v += XD_CSR_BETA(G) * XD_LD(in, G.i_off + bt * G.i_b + i * G.i_m + j * G.i_n);
    XD_ST(c, G.c_off + bt * G.c_b + i * G.c_m + j * G.c_n, v);
  }
}

__kernel void xd_csr_to_dense(__global T* c, __global const uchar* crow, __global const uchar* col,
                              __global const T* val, const xd_csr G, long row0) {
  const long lid = (long)get_local_id(0), group = (long)get_local_size(0);
  const long r = row0 + (long)get_group_id(0);
  const long bt = r / G.m, i = r - bt * G.m;
  const long row = G.c_off + bt * G.c_b + i * G.c_m;
  for (long j = lid; j < G.n; j += group) XD_ST(c, row + j * G.c_n, (CT)0);
  // The zeros reach memory before any work-item of the group scatters over them.
  barrier(CLK_GLOBAL_MEM_FENCE);
  const long rbase = G.crow_off + bt * (G.m + 1) + i;
  const long p1 = xd_csr_index(crow, G.idx64, rbase + 1);
  for (long p = xd_csr_index(crow, G.idx64, rbase) + lid; p < p1; p += group)
    c[row + xd_csr_index(col, G.idx64, G.col_off + bt * G.nnz + p) * G.c_n] = val[G.val_off + bt * G.nnz + p];
}

#endif  // XD_FLOATING
