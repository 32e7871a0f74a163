// INDEX_SELECT and GATHER along one dim (plugins/cpu/kernels/indexing.cpp gives the semantics): a bitwise
// move of T, so every dtype is exact (fp8, bool bytes and NaN payloads included).
//
// The host passes the layout of every dim but `dim` (operand 0 = output, operand 1 = a, over the
// output's sizes, which equal a's there), the number of indices n, the element steps of out and a
// along `dim`, and the index view (i64, element offset and stride). One work-item per output
// element; the layout's rows are innermost in the global id, so neighbouring work-items move
// neighbouring elements of a row (an embedding row is read and written coalesced).
// The host has checked every index; one outside [0, a_len) (a direct plugin call) writes a zero
// element instead of reading outside a.

__kernel void xd_index_select(__global T* out, __global const T* a, __global const long* index, const xd_layout L,
                              long n, long out_step, long a_step, long a_len, long index_off, long index_step) {
  const ulong g = get_global_id(0);
  const ulong rows = (ulong)L.numel;
  if (g >= rows * (ulong)n) return;
  const ulong i = xd_udiv(g, rows);
  const ulong r = g - i * rows;
  const long j = index[index_off + (long)i * index_step];
  const long o = xd_row_offset(L, 0, r) + (long)i * out_step;
  out[o] = (j >= 0 && j < a_len) ? a[xd_row_offset(L, 1, r) + j * a_step] : (T)0;
}

// GATHER: the host passes the layout of out's index space for three operands (0 = out,
// 1 = a with its step along `dim` zeroed, 2 = index), a's step along `dim` and its length there.
// One work-item per output element, innermost dims fastest.
__kernel void xd_gather(__global T* out, __global const T* a, __global const long* index, const xd_layout L,
                        long a_step, long a_len) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)L.numel) return;
  const long j = index[xd_row_offset(L, 2, g)];
  out[xd_row_offset(L, 0, g)] = (j >= 0 && j < a_len) ? a[xd_row_offset(L, 1, g) + j * a_step] : (T)0;
}
